/** The behaviour every blob store adapter must have. */
import type { Readable } from 'node:stream';
import { BlobNotFoundError, InvalidBlobKeyError, type BlobStore } from '../../application/ports/blob-store';

export type BlobStoreFixture = { store: BlobStore; reopen?: () => Promise<BlobStore>; cleanup: () => Promise<void> };

const bytesOf = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

export function blobStoreContract(name: string, open: () => Promise<BlobStoreFixture>): void {
  describe(`blob store contract: ${name}`, () => {
    let fixture: BlobStoreFixture;
    let store: BlobStore;
    const audio = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('stores bytes with their content type and reads them back whole', async () => {
      await store.put('rec-1.wav', audio, 'audio/wav');
      expect(await store.stat('rec-1.wav')).toEqual({ size: 1000, contentType: 'audio/wav' });
      expect((await bytesOf(await store.read('rec-1.wav'))).equals(audio)).toBe(true);
    });

    it('reads an inclusive byte range, clamping its end to the last byte', async () => {
      await store.put('rec-1', audio, 'audio/wav');
      expect((await bytesOf(await store.read('rec-1', { start: 10, end: 19 }))).equals(audio.subarray(10, 20))).toBe(
        true,
      );
      expect((await bytesOf(await store.read('rec-1', { start: 999, end: 999 }))).equals(audio.subarray(999))).toBe(
        true,
      );
      expect((await bytesOf(await store.read('rec-1', { start: 990, end: 5000 }))).equals(audio.subarray(990))).toBe(
        true,
      );
    });

    it('refuses a range that starts past the end or ends before it starts', async () => {
      await store.put('rec-1', audio, 'audio/wav');
      await expect(store.read('rec-1', { start: 1000, end: 1001 })).rejects.toThrow(RangeError);
      await expect(store.read('rec-1', { start: 20, end: 10 })).rejects.toThrow(RangeError);
      await expect(store.read('rec-1', { start: -1, end: 10 })).rejects.toThrow(RangeError);
    });

    it('keeps an empty blob', async () => {
      await store.put('empty', Buffer.alloc(0), 'application/octet-stream');
      expect(await store.stat('empty')).toEqual({ size: 0, contentType: 'application/octet-stream' });
      expect((await bytesOf(await store.read('empty'))).length).toBe(0);
    });

    it('answers null for the stat of a missing key and rejects its read', async () => {
      expect(await store.stat('nope')).toBeNull();
      await expect(store.read('nope')).rejects.toThrow(BlobNotFoundError);
      await expect(store.read('nope', { start: 0, end: 1 })).rejects.toThrow(BlobNotFoundError);
    });

    it('replaces a blob written again, type included', async () => {
      await store.put('rec-1', audio, 'audio/wav');
      await store.put('rec-1', Buffer.from('ID3 mp3 bytes'), 'audio/mpeg');
      expect(await store.stat('rec-1')).toEqual({ size: 13, contentType: 'audio/mpeg' });
      expect((await bytesOf(await store.read('rec-1'))).toString()).toBe('ID3 mp3 bytes');
    });

    it('gives a reader that started before an overwrite the old blob whole', async () => {
      await store.put('rec-1', audio, 'audio/wav');
      const reading = await store.read('rec-1');
      await store.put('rec-1', Buffer.from('new'), 'audio/wav');
      expect((await bytesOf(reading)).equals(audio)).toBe(true);
    });

    it('does not change a stored blob when the caller reuses its buffer', async () => {
      const buffer = Buffer.from('original');
      await store.put('rec-1', buffer, 'text/plain');
      buffer.write('mutated!');
      expect((await bytesOf(await store.read('rec-1'))).toString()).toBe('original');
    });

    it('deletes a blob, and deleting a missing one is not an error', async () => {
      await store.put('rec-1', audio, 'audio/wav');
      await store.delete('rec-1');
      expect(await store.stat('rec-1')).toBeNull();
      await expect(store.delete('rec-1')).resolves.toBeUndefined();
    });

    it.each([
      '../escape',
      '..',
      '.',
      '.hidden',
      'a/b',
      'a\\b',
      '/etc/passwd',
      '',
      'a\0b',
      'x'.repeat(201),
      'spaces are bad',
    ])('refuses the key %j in every operation', async (key) => {
      await expect(store.put(key, audio, 'audio/wav')).rejects.toThrow(InvalidBlobKeyError);
      await expect(store.stat(key)).rejects.toThrow(InvalidBlobKeyError);
      await expect(store.read(key)).rejects.toThrow(InvalidBlobKeyError);
      await expect(store.delete(key)).rejects.toThrow(InvalidBlobKeyError);
    });

    it('keeps blobs across a reopen when the adapter is durable', async () => {
      if (!fixture.reopen) return;
      await store.put('rec-1', audio, 'audio/wav');
      store = await fixture.reopen();
      expect(await store.stat('rec-1')).toEqual({ size: 1000, contentType: 'audio/wav' });
      expect(
        (await bytesOf(await store.read('rec-1', { start: 500, end: 509 }))).equals(audio.subarray(500, 510)),
      ).toBe(true);
    });
  });
}
