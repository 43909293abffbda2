import { MemoryReadStore } from '../../infrastructure/memory/memory-read-store';
import { readStoreContract } from './read-store.contract';

readStoreContract('memory', async () => {
  const store = new MemoryReadStore();
  return { store, cleanup: () => store.close() };
});
