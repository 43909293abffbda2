/** Blob store held in memory: for tests and for a service whose recordings need not outlive it. */
import { Readable } from 'node:stream';
import {
  assertValidBlobKey,
  BlobNotFoundError,
  clampRange,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from '../../application/ports/blob-store';

type Blob = { bytes: Buffer; contentType: string };

export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Blob>();

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertValidBlobKey(key);
    // A copy: the caller may reuse its buffer.
    this.blobs.set(key, { bytes: Buffer.from(bytes), contentType });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertValidBlobKey(key);
    const blob = this.blobs.get(key);
    return blob ? { size: blob.bytes.length, contentType: blob.contentType } : null;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    assertValidBlobKey(key);
    const blob = this.blobs.get(key);
    if (!blob) throw new BlobNotFoundError(key);
    if (!range) return Readable.from([blob.bytes], { objectMode: false });
    const { start, end } = clampRange(range, blob.bytes.length);
    return Readable.from([blob.bytes.subarray(start, end + 1)], { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    this.blobs.delete(key);
  }
}
