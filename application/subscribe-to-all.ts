/**
 * Catch-up subscription over any event store: reads pages of `readAll` until it reaches the head,
 * then waits for the store's `appended$` signal (or a poll timeout) and goes on. It is pull-based:
 * the next page is read only when the consumer asks for it, so a slow consumer is never flooded.
 */
import { firstValueFrom, merge, timer, filter, from } from './rx';
import { aborted } from './pause';
import type { EventStore, RecordedEvent } from './ports/event-store';

export type SubscriptionOptions = {
  /** Exclusive: start after this position (-1 from the beginning). */
  after?: number;
  batchSize?: number;
  /** Longest wait between two looks at the store while idle, for appends by other processes. */
  pollMs?: number;
  signal?: AbortSignal;
};

export async function* subscribeToAll(
  store: EventStore,
  options: SubscriptionOptions = {},
): AsyncGenerator<RecordedEvent[]> {
  const batchSize = options.batchSize ?? 1000;
  const pollMs = options.pollMs ?? 500;
  let after = options.after ?? -1;
  const stop = aborted(options.signal);
  while (!options.signal?.aborted) {
    // Subscribe to the signal before reading, so an append between the read and the wait is not missed.
    // `merge` waits for the first emission: a signal that has completed (a closed store) must not end
    // the wait at once, or the loop would spin; the timer still wakes it.
    const appended = firstValueFrom(merge(store.appended$.pipe(filter((p) => p > after)), timer(pollMs), from(stop)), {
      defaultValue: 0,
    });
    const events = await store.readAll({ after, maxCount: batchSize });
    if (events.length > 0) {
      after = events[events.length - 1]!.position;
      yield events;
      continue;
    }
    await appended;
  }
}
