/**
 * Blob store on a directory: one file per key. A file starts with one JSON line of metadata (the
 * content type) followed by the blob's bytes, so a blob and its type are replaced together. A blob is
 * written to a temporary file, flushed to disk and renamed over the old one: a reader sees the old
 * blob or the new one, never part of one. A reader that opened the old file keeps reading it whole.
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ownerOnlyDirectory } from '../shared/owner-only';
import {
  assertValidBlobKey,
  BlobNotFoundError,
  clampRange,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from '../../application/ports/blob-store';

/** Longest metadata line read back; a longer one means the file is not a blob of this store. */
const MAX_HEADER_BYTES = 1024;
const TEMP_SUFFIX = '.tmp';
/** Temporary files older than this were left by a writer that died; younger ones may be in flight. */
const STALE_TEMP_MS = 60 * 60_000;

type Header = { contentType: string; bytes: number };

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

export class FilesystemBlobStore implements BlobStore {
  private constructor(private readonly dir: string) {}

  /** Creates the directory when missing and removes temporary files left by a crashed writer. */
  static async open(dir: string): Promise<FilesystemBlobStore> {
    ownerOnlyDirectory(dir);
    const now = Date.now();
    for (const name of await readdir(dir)) {
      if (!name.startsWith('.') || !name.endsWith(TEMP_SUFFIX)) continue;
      const path = join(dir, name);
      const info = await stat(path).catch(() => null);
      if (info && now - info.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(() => undefined);
    }
    return new FilesystemBlobStore(dir);
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertValidBlobKey(key);
    const header = Buffer.from(`${JSON.stringify({ contentType })}\n`, 'utf8');
    if (header.length > MAX_HEADER_BYTES) throw new RangeError('Content type too long');
    // Valid keys never start with a dot, so a temporary file cannot be mistaken for a blob.
    const temp = join(this.dir, `.${key}.${randomUUID()}${TEMP_SUFFIX}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await writeAll(handle, header, 0);
      await writeAll(handle, bytes, header.length);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    try {
      await rename(temp, this.pathOf(key));
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await syncDirectory(this.dir);
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertValidBlobKey(key);
    const handle = await this.openBlob(key);
    if (!handle) return null;
    try {
      const { contentType, bytes } = await readHeader(handle);
      return { size: (await handle.stat()).size - bytes, contentType };
    } finally {
      await handle.close();
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    assertValidBlobKey(key);
    const handle = await this.openBlob(key);
    if (!handle) throw new BlobNotFoundError(key);
    try {
      const header = await readHeader(handle);
      const size = (await handle.stat()).size - header.bytes;
      if (range) {
        const { start, end } = clampRange(range, size);
        return handle.createReadStream({ start: header.bytes + start, end: header.bytes + end });
      }
      return handle.createReadStream({ start: header.bytes });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  private pathOf(key: string): string {
    return join(this.dir, key);
  }

  private async openBlob(key: string): Promise<FileHandle | null> {
    try {
      return await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

async function readHeader(handle: FileHandle): Promise<Header> {
  const buffer = Buffer.alloc(MAX_HEADER_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, MAX_HEADER_BYTES, 0);
  const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
  if (newline < 0) throw new Error('Blob file has no metadata line');
  const { contentType } = JSON.parse(buffer.subarray(0, newline).toString('utf8')) as { contentType: string };
  return { contentType, bytes: newline + 1 };
}

/** Makes the rename itself durable. Some platforms cannot open a directory for syncing; they lose nothing more than before. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // not supported here
  } finally {
    await handle?.close();
  }
}
