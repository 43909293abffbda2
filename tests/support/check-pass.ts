/**
 * The check runs every suite on Node 20, then again on Node 24 (.ci/run, .ci/node24, which sets
 * CHECK_RUNTIME_ONLY). The longest suites whose outcome rests on the service's own logic rather than on
 * the runtime (fault recovery across processes killed and restarted, timers waited out in real time) run
 * on the first pass only, so the whole check stays within its time budget; the second pass says so.
 */
export function describeOnFirstPass(name: string, body: () => void): void {
  if (process.env.CHECK_RUNTIME_ONLY) {
    console.log(`suite "${name}" skipped: it runs on the first Node of the check only`);
    describe.skip(name, body);
  } else describe(name, body);
}
