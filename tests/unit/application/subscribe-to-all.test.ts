import { subscribeToAll } from '../../../application/subscribe-to-all';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';

describe('catch-up subscription', () => {
  it('waits on its timer instead of spinning when the store signal has completed', async () => {
    const store = new MemoryEventStore();
    let reads = 0;
    const counting = Object.assign(Object.create(store), {
      readAll: (o: object) => (reads++, store.readAll(o)),
      appended$: store.appended$,
    });
    await store.close(); // completes appended$
    const controller = new AbortController();
    const loop = (async () => {
      for await (const _ of subscribeToAll(counting, { pollMs: 100, signal: controller.signal })) void _;
    })();
    await new Promise((r) => setTimeout(r, 350));
    controller.abort();
    await loop;
    // About one read per poll interval; a spinning loop would read thousands of times.
    expect(reads).toBeLessThan(10);
  });
});
