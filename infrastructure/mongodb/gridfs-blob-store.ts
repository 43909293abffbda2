/**
 * Blob store in MongoDB GridFS (bucket `recordings` by default): every replica of the service reaches
 * the same recordings through the database it already uses for its read models. A blob is one GridFS
 * file named by its key, with the content type in its metadata.
 *
 * Replacing: `put` uploads the new bytes as a new file (a fresh id) under the same name, and once it is
 * complete deletes the files of that name that are older than it. GridFS writes a file's document only
 * after all its chunks, so a file that can be found is complete; readers take the newest one (upload
 * date, then id). A reader sees the old blob or the new one, never part of either.
 *
 * A read looks the file up, then fetches its first chunk before it answers, which brings the server's
 * first batch of chunks (about 16 MiB) with it: a reader that started before an overwrite still reads
 * a blob up to that size whole. A larger blob overwritten while it is being read loses its later chunks;
 * the stream then fails with an error rather than end short.
 *
 * Writes use write concern `majority`, so a blob `put` has answered for survives a failover. A writer
 * that dies during an upload leaves chunks without a file document: unreachable, never read.
 */
import { GridFSBucket, MongoClient, type Collection, type Db, type GridFSFile, type ObjectId } from 'mongodb';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  assertValidBlobKey,
  BlobNotFoundError,
  clampRange,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from '../../application/ports/blob-store';

type Chunk = { files_id: ObjectId; n: number };

const WRITE_CONCERN = { w: 'majority' } as const;
const NEWEST_FIRST = { uploadDate: -1, _id: -1 } as const;
/** Lookups again when the file found was replaced or deleted before its first chunk was read. */
const READ_ATTEMPTS = 3;

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<GridFSFile>;
  private readonly chunks: Collection<Chunk>;
  /** Set by `connect`: the client this store made, closed by `close()`. */
  private client: MongoClient | null = null;

  /** A store on a database whose client the caller keeps (and closes). */
  constructor(db: Db, bucketName = 'recordings') {
    this.bucket = new GridFSBucket(db, { bucketName, writeConcern: WRITE_CONCERN });
    this.files = db.collection<GridFSFile>(`${bucketName}.files`, { writeConcern: WRITE_CONCERN });
    this.chunks = db.collection<Chunk>(`${bucketName}.chunks`, { writeConcern: WRITE_CONCERN });
  }

  /** A store that owns its client: `close()` closes it. */
  static async connect(url: string, dbName: string, bucketName = 'recordings'): Promise<GridFsBlobStore> {
    const client = await MongoClient.connect(url);
    const store = new GridFsBlobStore(client.db(dbName), bucketName);
    store.client = client;
    return store;
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = null;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertValidBlobKey(key);
    const upload = this.bucket.openUploadStream(key, { metadata: { contentType } });
    try {
      if (bytes.length > 0) upload.write(bytes);
      upload.end();
      await finished(upload);
    } catch (error) {
      // The file document was not written, so nobody sees the chunks; remove them.
      await upload.abort().catch(() => undefined);
      throw error;
    }
    const mine = upload.gridFSFile;
    if (!mine) throw new Error(`GridFS upload of ${key} finished without its file document`);
    const older = await this.files
      .find(
        {
          filename: key,
          $or: [{ uploadDate: { $lt: mine.uploadDate } }, { uploadDate: mine.uploadDate, _id: { $lt: mine._id } }],
        },
        { projection: { _id: 1 } },
      )
      .toArray();
    for (const { _id } of older) await this.remove(_id);
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertValidBlobKey(key);
    const file = await this.newest(key);
    return file && { size: file.length, contentType: contentTypeOf(file) };
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    assertValidBlobKey(key);
    for (let attempt = 1; ; attempt++) {
      const file = await this.newest(key);
      if (!file) throw new BlobNotFoundError(key);
      const { start, end } = range ? clampRange(range, file.length) : { start: 0, end: file.length - 1 };
      const expected = end - start + 1;
      if (expected <= 0) return Readable.from([], { objectMode: false });
      // GridFS counts `end` exclusive; the port counts it inclusive.
      const download = this.bucket.openDownloadStream(file._id, { start, end: end + 1 });
      let first: Buffer | null;
      try {
        first = await firstChunk(download);
      } catch (error) {
        if (!isFileNotFound(error) || attempt >= READ_ATTEMPTS) throw error;
        continue;
      }
      if (first) return Readable.from(rest(key, first, download, expected), { objectMode: false });
      // The file was deleted between its lookup and its first chunk: look again.
      await download.abort().catch(() => undefined);
      if (attempt >= READ_ATTEMPTS) throw new BlobNotFoundError(key);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    const files = await this.files.find({ filename: key }, { projection: { _id: 1 } }).toArray();
    for (const { _id } of files) await this.remove(_id);
  }

  private newest(key: string): Promise<GridFSFile | null> {
    return this.files.findOne({ filename: key }, { sort: NEWEST_FIRST });
  }

  /** The file document first, so the file is gone for readers before its chunks are. A missing file is no error. */
  private async remove(id: ObjectId): Promise<void> {
    await this.files.deleteOne({ _id: id });
    await this.chunks.deleteMany({ files_id: id });
  }
}

const contentTypeOf = (file: GridFSFile): string => {
  const stored = file.metadata?.contentType ?? file.contentType;
  return typeof stored === 'string' ? stored : 'application/octet-stream';
};

const isFileNotFound = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'ENOENT';

/** Waits for the stream's first bytes (null: it ended with none) or its error. */
function firstChunk(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      stream.off('readable', onReadable);
      stream.off('error', onError);
    };
    const onReadable = () => {
      settle();
      resolve(stream.read() as Buffer | null);
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    stream.on('readable', onReadable);
    stream.on('error', onError);
  });
}

/** The first bytes, then the rest of the download; fails unless exactly `expected` bytes came. */
async function* rest(
  key: string,
  first: Buffer,
  download: ReturnType<GridFSBucket['openDownloadStream']>,
  expected: number,
): AsyncGenerator<Buffer> {
  let seen = first.length;
  try {
    yield first;
    for await (const chunk of download) {
      seen += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  } finally {
    // A reader that stopped early: close the server's cursor.
    if (!download.readableEnded) await download.abort().catch(() => undefined);
  }
  if (seen !== expected) throw new Error(`Blob ${key} changed while it was read (${seen} of ${expected} bytes)`);
}
