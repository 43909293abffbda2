/**
 * The blob store port: whole byte strings (call recordings) under a key, written at once and read
 * back whole or by byte range. A reader never sees a half-written blob; a blob written again replaces
 * the old one. Keys are one safe file-name-like word, so no adapter can be led outside its storage.
 * Adapters: memory (tests, single process) and filesystem (a directory, e.g. DATA_DIR/recordings).
 */
import type { Readable } from 'node:stream';

export type BlobInfo = { size: number; contentType: string };

/** Inclusive on both ends, as HTTP `Range` and `fs.createReadStream` count. */
export type ByteRange = { start: number; end: number };

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: no separators, no `..`. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export const isValidBlobKey = (key: string): boolean => KEY.test(key);

export class InvalidBlobKeyError extends Error {
  constructor(key: string) {
    super(`Invalid blob key ${JSON.stringify(key.slice(0, 80))}`);
    this.name = 'InvalidBlobKeyError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`Blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

export function assertValidBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new InvalidBlobKeyError(key);
}

/** Checks a range against a blob's size: start within the blob, end not before start; end is clamped to the last byte. */
export function clampRange(range: ByteRange, size: number): ByteRange {
  const { start, end } = range;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || start >= size) {
    throw new RangeError(`Range ${start}-${end} is not within a blob of ${size} bytes`);
  }
  return { start, end: Math.min(end, size - 1) };
}

export interface BlobStore {
  /** Stores (or replaces) the blob; resolves once a reader sees all of it (and, on disk, it is durable). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Size and type, or null when there is no such blob. */
  stat(key: string): Promise<BlobInfo | null>;
  /**
   * The blob's bytes, or the bytes of `range` (clamped to the blob's end). Rejects with
   * `BlobNotFoundError` when there is no such blob, `RangeError` for a range outside it.
   */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the blob; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
}
