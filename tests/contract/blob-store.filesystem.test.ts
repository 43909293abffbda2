import { readdirSync, writeFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { FilesystemBlobStore } from '../../infrastructure/filesystem/filesystem-blob-store';
import { tempDir } from '../support/temp-dir';
import { blobStoreContract } from './blob-store.contract';

blobStoreContract('filesystem', async () => {
  const dir = tempDir();
  const path = join(dir.path, 'recordings');
  return {
    store: await FilesystemBlobStore.open(path),
    reopen: () => FilesystemBlobStore.open(path),
    cleanup: async () => dir.remove(),
  };
});

describe('filesystem blob store', () => {
  it('writes nothing outside its directory and leaves no temporary file behind', async () => {
    const dir = tempDir();
    try {
      const store = await FilesystemBlobStore.open(join(dir.path, 'recordings'));
      await store.put('rec-1', Buffer.from('abc'), 'audio/wav');
      await expect(store.put('../outside', Buffer.from('abc'), 'audio/wav')).rejects.toThrow();
      expect(readdirSync(dir.path)).toEqual(['recordings']);
      expect(readdirSync(join(dir.path, 'recordings'))).toEqual(['rec-1']);
    } finally {
      dir.remove();
    }
  });

  it('removes temporary files a crashed writer left, but not fresh ones another writer may still own', async () => {
    const dir = tempDir();
    try {
      const stale = join(dir.path, '.rec-1.abc.tmp');
      const fresh = join(dir.path, '.rec-2.def.tmp');
      writeFileSync(stale, 'half');
      writeFileSync(fresh, 'half');
      const old = new Date(Date.now() - 2 * 60 * 60_000);
      utimesSync(stale, old, old);
      await FilesystemBlobStore.open(dir.path);
      expect(readdirSync(dir.path)).toEqual(['.rec-2.def.tmp']);
    } finally {
      dir.remove();
    }
  });
});
