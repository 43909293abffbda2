/**
 * Debian's eSpeak NG library, called directly: the same text in the same voice gives the same samples
 * whatever the process synthesized before (other languages, other voices, syntheses stopped midway),
 * and the same samples as in a process that synthesized nothing else, because its synthesis state is
 * put back before each synthesis (espeak-native-state.ts). The syntheses run in processes of their own
 * (tests/support/native-library-check.ts): the library's state belongs to the process.
 */
import { execFileSync } from 'node:child_process';
import { mappedLibrary } from '../../../infrastructure/speech/worker/espeak-native-state';
import type { NativeLibraryReport } from '../../support/native-library-check';
import { describeEngine } from '../../support/speech';

jest.setTimeout(60_000);

const run = (argument: string): unknown =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--require', require.resolve('tsx/cjs'), require.resolve('../../support/native-library-check'), argument],
      { encoding: 'utf8' },
    ),
  );

describeEngine('native')('the native library, synthesis after synthesis', () => {
  it('is the build whose state words are known, and repeats every language and voice in any order', () => {
    const report = run('120') as NativeLibraryReport;
    // A different build (a Debian update) leaves output unrepeatable: find its words again, as espeak-native-state.ts says.
    expect(report.pinned).toBe(true);
    expect(report.compared).toBeGreaterThan(80);
    expect(report.mismatches).toEqual([]);
    // After all that, a job sounds as it does in a process that did nothing else.
    expect(report.lastHash).toBe((run('fresh') as { lastHash: string }).lastHash);
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
