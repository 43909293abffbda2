/** SPEECH_ENGINE: which eSpeak NG build speaks, and why (one log line says it at start). */
import { chooseEngine } from '../../../infrastructure/speech/engine-kind';

const loads = () => undefined;
const missing = () => 'libespeak-ng.so.1: cannot open shared object file';

describe('speech engine choice', () => {
  it('js is the JavaScript build, whatever the machine has', () => {
    expect(chooseEngine('js', loads)).toEqual({ kind: 'js', reason: 'SPEECH_ENGINE=js' });
    expect(chooseEngine('js', missing).kind).toBe('js');
  });

  it('auto takes the native library when it loads, and says why it did not otherwise', () => {
    expect(chooseEngine('auto', loads).kind).toBe('native');
    const fallback = chooseEngine('auto', missing);
    expect(fallback.kind).toBe('js');
    expect(fallback.reason).toContain('apt-get install libespeak-ng1');
    expect(fallback.reason).toContain('cannot open shared object file');
  });

  it('native refuses to start without the library, naming the way to get it', () => {
    expect(chooseEngine('native', loads).kind).toBe('native');
    expect(() => chooseEngine('native', missing)).toThrow(/apt-get install libespeak-ng1/);
  });
});
