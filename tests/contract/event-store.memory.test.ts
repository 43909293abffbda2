import { MemoryEventStore } from '../../infrastructure/memory/memory-event-store';
import { eventStoreContract } from './event-store.contract';

eventStoreContract('memory', async () => {
  const store = new MemoryEventStore();
  return { store, cleanup: () => store.close() };
});
