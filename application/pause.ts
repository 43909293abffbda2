/** Resolves once `signal` aborts (never without one). */
export function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. With `unref` the timer does not keep the
 * process alive on its own (for a background loop that should not hold the process open).
 */
export function pause(ms: number, signal: AbortSignal, options: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (options.unref) timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });
}
