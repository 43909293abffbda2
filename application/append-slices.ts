/**
 * Bulk work (a 10,000-record add, its calls, initiate-chat, workflow starts) hands its appends to the
 * command handler in slices, letting the event loop turn between them: the event store's writer thread
 * commits one slice (and the projections apply it) while the next is prepared, and one request's
 * memory stays bounded (bench/customers.ts, bench/chats.ts).
 */
export const APPEND_SLICE = 500;

/** Call after handing over the `handedOver`-th append: every APPEND_SLICE of them, lets the event loop turn. */
export async function sliceBoundary(handedOver: number): Promise<void> {
  if (handedOver % APPEND_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * An append handed over, settled as soon as it is: bulk work awaits its appends only after handing over
 * the last one, so an early refusal (a duplicate of a 10,000-record add) must not wait unobserved
 * meanwhile, where Node takes it for an unhandled rejection and ends the process.
 */
export const handedOver = <T>(append: Promise<T>): Promise<PromiseSettledResult<T>> =>
  append.then(
    (value) => ({ status: 'fulfilled', value }),
    (reason: unknown) => ({ status: 'rejected', reason }),
  );
