/** SPEECH_ENGINE: which eSpeak NG build speaks, and why (one log line says it at start). */
import { chooseEngine } from '../../../infrastructure/speech/engine-kind';

const repeatable = () => ({ repeatable: true });
const otherBuild = () => ({ repeatable: false });
const missing = () => ({ error: 'libespeak-ng.so.1: cannot open shared object file' });

describe('speech engine choice', () => {
  it('js is the JavaScript build, whatever the machine has', () => {
    expect(chooseEngine('js', repeatable)).toEqual({ kind: 'js', reason: 'SPEECH_ENGINE=js' });
    expect(chooseEngine('js', missing).kind).toBe('js');
  });

  it('auto takes the native library when it loads and repeats exactly, and says why it did not otherwise', () => {
    expect(chooseEngine('auto', repeatable).kind).toBe('native');
    const fallback = chooseEngine('auto', missing);
    expect(fallback.kind).toBe('js');
    expect(fallback.reason).toContain('apt-get install libespeak-ng1');
    expect(fallback.reason).toContain('cannot open shared object file');
    const unknown = chooseEngine('auto', otherBuild);
    expect(unknown.kind).toBe('js');
    expect(unknown.reason).toContain('not the build whose output repeats exactly');
  });

  it('native refuses to start without the library, naming the way to get it; it takes any build of it', () => {
    expect(chooseEngine('native', repeatable).kind).toBe('native');
    expect(chooseEngine('native', otherBuild).kind).toBe('native');
    expect(() => chooseEngine('native', missing)).toThrow(/apt-get install libespeak-ng1/);
  });
});
