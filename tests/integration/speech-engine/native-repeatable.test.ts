/**
 * Debian's eSpeak NG library, called directly: the same text in the same voice gives the same samples
 * whatever the process synthesized before (other languages, other voices, syntheses stopped midway),
 * because its synthesis state is put back before each synthesis (espeak-native-state.ts).
 */
import { loadNativeEspeak } from '../../../infrastructure/speech/worker/espeak-native';
import { mappedLibrary, nativeStateReset } from '../../../infrastructure/speech/worker/espeak-native-state';
import { languages } from '../../../infrastructure/speech/languages';
import { voiceCatalog } from '../../../infrastructure/speech/voices';
import { describeEngine } from '../../support/speech';

type Job = { text: string; voice: { name: string; pitch: number; range: number; wordsPerMinute: number } };

const jobs: Job[] = Object.values(languages).flatMap((language) =>
  voiceCatalog.map(({ timbre }) => ({
    text: language.sample,
    voice: { name: `${language.espeak}+${timbre.variant}`, ...timbre },
  })),
);

describeEngine('native')('the native library, synthesis after synthesis', () => {
  const espeak = loadNativeEspeak();

  /** The samples of a job, or null when it was stopped after `blocks` blocks. */
  function synthesize(job: Job, blocks = Infinity): Int16Array | null {
    const parts: Int16Array[] = [];
    const finished = espeak.synthesize(job.text, job.voice, (samples) => {
      parts.push(samples.slice());
      return parts.length < blocks;
    });
    if (!finished) return null;
    const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
    return all;
  }
  const same = (a: Int16Array, b: Int16Array) => a.length === b.length && a.every((s, i) => s === b[i]);

  it('is the build whose state words are known', () => {
    expect(mappedLibrary('libespeak-ng.so.1')).not.toBeNull();
    // A different build (a Debian update) leaves output unrepeatable: find its words again, as the file says.
    expect(nativeStateReset('libespeak-ng.so.1', () => new ArrayBuffer(0)).pinned).toBe(true);
  });

  it('gives every language and voice the same samples in any order, after stopped syntheses too', () => {
    const reference = jobs.map((job) => synthesize(job)!);
    let seed = 1;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    let compared = 0;
    for (let n = 0; n < 120; n++) {
      const k = Math.floor(random() * jobs.length);
      const samples = synthesize(jobs[k]!, random() < 0.2 ? 1 + Math.floor(random() * 8) : Infinity);
      if (!samples) continue;
      compared++;
      if (!same(samples, reference[k]!)) throw new Error(`${jobs[k]!.voice.name}: samples differ after ${n} syntheses`);
    }
    expect(compared).toBeGreaterThan(80);
  });
});

describe('where a library is mapped', () => {
  it('reads the load address of the mapping of file offset 0', () => {
    const maps = [
      '7f00aa000000-7f00aa012000 r--p 00000000 fe:00 55 /usr/lib/x86_64-linux-gnu/libespeak-ng.so.1.1.51',
      '7f00aa012000-7f00aa055000 r-xp 00012000 fe:00 55 /usr/lib/x86_64-linux-gnu/libespeak-ng.so.1.1.51',
    ].join('\n');
    expect(mappedLibrary('libespeak-ng.so.1', maps)).toEqual({
      path: '/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1.1.51',
      base: 0x7f00aa000000n,
    });
    expect(mappedLibrary('libother.so', maps)).toBeNull();
  });
});
