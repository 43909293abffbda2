/**
 * The order jest starts suites in (jest.config.js `testSequencer`). Jest's own order runs the suites that
 * took longest last time first, so that no worker is left with a long one at the end; without timings
 * (a fresh clone, as in CI) it goes by file size, which says little here: a short file that starts the
 * service as processes and kills them runs for a minute and a half, and started last it was the only
 * suite running for the last 40 s of a CI run. Suites without timings therefore go by kind, the slowest
 * kinds first (processes, then the browser, then services in the process, then adapters, then units),
 * and by file size within a kind; suites with timings keep jest's order after them.
 */
const Sequencer = require('@jest/test-sequencer').default;

const KINDS = ['/tests/e2e/', '/tests/browser/', '/tests/integration/', '/tests/contract/', '/tests/unit/'];
const kindOf = (path) => {
  const at = KINDS.findIndex((kind) => path.replace(/\\/g, '/').includes(kind));
  return at < 0 ? KINDS.length : at;
};

class SlowKindsFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // Array#sort is stable: within a kind, jest's order (by file size) stays.
    const untimed = sorted.filter((test) => test.duration == null).sort((a, b) => kindOf(a.path) - kindOf(b.path));
    return [...untimed, ...sorted.filter((test) => test.duration != null)];
  }
}

module.exports = SlowKindsFirst;
