/**
 * The blob store contract against MongoDB GridFS in a container, started as a single-node replica set as
 * the production topology runs it: one server for the file, a fresh database and client per test. Where
 * no container runtime is reachable the suite is registered as skipped, with the reason in its title and
 * on the console.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { MongoClient } from 'mongodb';
import { GridFsBlobStore } from '../../infrastructure/mongodb/gridfs-blob-store';
import { containerRuntime } from '../support/container-runtime';
import { startMongoReplicaSet, type MongoServer } from '../support/mongo-container';
import { blobStoreContract, type BlobStoreFixture } from './blob-store.contract';

const runtime = containerRuntime();

let server: MongoServer | undefined;
let admin: MongoClient | undefined;
let url = '';

async function startServer(): Promise<void> {
  server = await startMongoReplicaSet();
  ({ admin, url } = server);
}

type GridFsFixture = BlobStoreFixture & { store: GridFsBlobStore; dbName: string };

async function open(): Promise<GridFsFixture> {
  const dbName = `blobs_${randomUUID().replaceAll('-', '')}`;
  let store = await GridFsBlobStore.connect(url, dbName);
  return {
    store,
    dbName,
    reopen: async () => {
      await store.close();
      store = await GridFsBlobStore.connect(url, dbName);
      return store;
    },
    cleanup: async () => {
      await store.close();
      await admin!.db(dbName).dropDatabase();
    },
  };
}

const bytesOf = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

function adapterSpecifics(): void {
  describe('GridFS adapter', () => {
    // Three GridFS chunks (255 KiB each by default), the last one short.
    const large = Buffer.from(Array.from({ length: 600_000 }, (_, i) => (i * 31 + (i >> 8)) % 256));
    const chunk = 255 * 1024;

    it('keeps one file per key: an overwrite removes the older file and its chunks', async () => {
      const { store, dbName, cleanup } = await open();
      try {
        await store.put('rec-1', large, 'audio/wav');
        await store.put('rec-1', Buffer.from('short'), 'audio/wav');
        const db = admin!.db(dbName);
        expect(await db.collection('recordings.files').countDocuments({ filename: 'rec-1' })).toBe(1);
        expect(await db.collection('recordings.chunks').countDocuments()).toBe(1);
        await store.delete('rec-1');
        expect(await db.collection('recordings.files').countDocuments()).toBe(0);
        expect(await db.collection('recordings.chunks').countDocuments()).toBe(0);
      } finally {
        await cleanup();
      }
    });

    it('reads ranges within and across chunk boundaries', async () => {
      const { store, cleanup } = await open();
      try {
        await store.put('rec-1', large, 'audio/wav');
        expect((await bytesOf(await store.read('rec-1'))).equals(large)).toBe(true);
        for (const [start, end] of [
          [0, chunk - 1],
          [chunk - 1, chunk],
          [chunk, 2 * chunk - 1],
          [100, 599_999],
          [2 * chunk + 5, 700_000],
        ] as const) {
          const read = await bytesOf(await store.read('rec-1', { start, end }));
          expect(read.equals(large.subarray(start, Math.min(end, large.length - 1) + 1))).toBe(true);
        }
      } finally {
        await cleanup();
      }
    });

    it('gives a reader that started before an overwrite a blob of several chunks whole', async () => {
      const { store, cleanup } = await open();
      try {
        await store.put('rec-1', large, 'audio/wav');
        const reading = await store.read('rec-1', { start: 10, end: 599_990 });
        await store.put('rec-1', Buffer.from('new'), 'audio/wav');
        expect((await bytesOf(reading)).equals(large.subarray(10, 599_991))).toBe(true);
        expect((await bytesOf(await store.read('rec-1'))).toString()).toBe('new');
      } finally {
        await cleanup();
      }
    });

    it('leaves a client it was given open on close', async () => {
      const dbName = `blobs_${randomUUID().replaceAll('-', '')}`;
      const store = new GridFsBlobStore(admin!.db(dbName), 'media');
      try {
        await store.put('rec-1', Buffer.from('abc'), 'audio/wav');
        await store.close();
        expect(await admin!.db(dbName).collection('media.files').countDocuments()).toBe(1);
      } finally {
        await admin!.db(dbName).dropDatabase();
      }
    });
  });
}

if (runtime.available) {
  beforeAll(startServer, 180_000);
  afterAll(() => server?.stop(), 60_000);
  blobStoreContract('gridfs', open);
  adapterSpecifics();
} else {
  console.warn(`Skipping GridFS blob store contract suite: ${runtime.reason}`);
  // The reason is printed above and stands in the skipped suite's title.
  describe.skip(`GridFS blob store contract suite (skipped: ${runtime.reason})`, () => {
    blobStoreContract('gridfs', open);
    adapterSpecifics();
  });
}
