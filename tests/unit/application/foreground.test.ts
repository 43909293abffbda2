/** Background work gives way to requests being served, and longer to bulk requests, but never for ever. */
import { Foreground } from '../../../application/foreground';

const settledWithin = async (promise: Promise<void>, ms: number) => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

describe('foreground', () => {
  it('quiet waits while a request is served and resolves when the last one ends', async () => {
    const fg = new Foreground();
    expect(await settledWithin(fg.quiet(5_000), 5)).toBe(true);
    const endA = fg.begin();
    const endB = fg.begin();
    const waiting = fg.quiet(5_000);
    endA();
    endA(); // a second end of the same request counts once
    expect(await settledWithin(waiting, 20)).toBe(false);
    endB();
    expect(await settledWithin(waiting, 5)).toBe(true);
  });

  it('quietOfBulk waits for bulk requests only', async () => {
    const fg = new Foreground();
    fg.begin();
    expect(await settledWithin(fg.quietOfBulk(5_000), 5)).toBe(true);
    const endBulk = fg.beginBulk();
    const waiting = fg.quietOfBulk(5_000);
    const quiet = fg.quiet(5_000);
    expect(await settledWithin(waiting, 20)).toBe(false);
    endBulk();
    expect(await settledWithin(waiting, 5)).toBe(true);
    // An ordinary request is still being served.
    expect(await settledWithin(quiet, 5)).toBe(false);
  });

  it('gives way for a bounded time at most', async () => {
    const fg = new Foreground();
    fg.beginBulk();
    const started = Date.now();
    await fg.quietOfBulk(50);
    await fg.quiet(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
