/** The key store in a collection of the memory read store, as the service keeps it with READ_STORE=memory. */
import { ReadStoreKeys } from '../../application/privacy/read-store-keys';
import { MemoryReadStore } from '../../infrastructure/memory/memory-read-store';
import { keyStoreContract } from './key-store.contract';

keyStoreContract('read store (memory)', async () => {
  const reads = new MemoryReadStore();
  return { open: ({ now }) => ReadStoreKeys.open(reads, { now }), cleanup: () => reads.close() };
});
