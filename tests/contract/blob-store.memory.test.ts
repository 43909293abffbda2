import { MemoryBlobStore } from '../../infrastructure/memory/memory-blob-store';
import { blobStoreContract } from './blob-store.contract';

blobStoreContract('memory', async () => ({ store: new MemoryBlobStore(), cleanup: async () => undefined }));
