/** Opens the blob store (call recordings) that goes with the configured read store. */
import { join } from 'node:path';
import type { BlobStore } from '../application/ports/blob-store';
import type { Config } from './config/config';
import { FilesystemBlobStore } from './filesystem/filesystem-blob-store';
import { MemoryBlobStore } from './memory/memory-blob-store';

/** A blob store; those that hold a connection close it in `close()`. */
export type OpenBlobStore = BlobStore & { close?(): Promise<void> };

/**
 * Memory read store: recordings in memory too. MongoDB: GridFS in the read store's database, so every
 * replica reaches every recording. Otherwise a directory, DATA_DIR/recordings (shared storage when
 * several machines serve recordings).
 */
export async function openBlobStore(
  config: Pick<Config, 'readStore' | 'dataDir' | 'mongoDbUrl' | 'mongoDbName'>,
): Promise<OpenBlobStore> {
  if (config.readStore === 'memory') return new MemoryBlobStore();
  if (config.readStore === 'mongodb') {
    // Loaded only when chosen, so the embedded default does not pay for the production client.
    const { GridFsBlobStore } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('./mongodb/gridfs-blob-store') as typeof import('./mongodb/gridfs-blob-store');
    return GridFsBlobStore.connect(config.mongoDbUrl!, config.mongoDbName);
  }
  return FilesystemBlobStore.open(join(config.dataDir, 'recordings'));
}
