/**
 * What every AES-256-GCM of personal-data sealing (application/privacy/aes-gcm.ts) must do: give the
 * bytes node:crypto gives, open what the others sealed, and refuse whatever was altered or opened with
 * anything else than what sealed it, without ever reading or writing past a buffer.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { nodeAesGcm, type AesGcm } from '../../application/privacy/aes-gcm';

/** node:crypto's answer: ciphertext and tag, as bytes. */
function reference(key: Buffer, iv: Buffer, aad: Buffer, plain: string): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
  return Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
}

const message = (length: number) => 'Asha Patil, +91 98100 00001, आशा पाटील '.repeat(length).slice(0, length);

export function aesGcmContract(name: string, cipher: () => AesGcm): void {
  describe(`AES-256-GCM contract: ${name}`, () => {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const aad = Buffer.from('["sealed/1","s1","CustomerAdded",["record.first_name"]]');

    it.each([0, 1, 15, 16, 17, 250, 4096, 1_000_000])(
      'seals %i characters to the bytes node:crypto gives',
      (length) => {
        const plain = message(length);
        expect(cipher().seal(key, iv, aad, plain)).toBe(reference(key, iv, aad, plain).toString('base64'));
      },
    );

    it('opens what it sealed and what node:crypto sealed, message after message under different keys', () => {
      for (let i = 0; i < 50; i++) {
        const k = randomBytes(32);
        const v = randomBytes(12);
        const plain = message(i * 37);
        const own = Buffer.from(cipher().seal(k, v, aad, plain), 'base64');
        expect(cipher().open(k, v, aad, own)).toBe(plain);
        expect(nodeAesGcm.open(k, v, aad, own)).toBe(plain);
        expect(cipher().open(k, v, aad, reference(k, v, aad, plain))).toBe(plain);
      }
    });

    it('answers null for anything altered or opened with another key, IV or associated data', () => {
      const plain = message(120);
      const sealed = reference(key, iv, aad, plain);
      const flipped = (bytes: Buffer, at: number) => {
        const copy = Buffer.from(bytes);
        copy[at] = copy[at]! ^ 1;
        return copy;
      };
      expect(cipher().open(key, iv, aad, flipped(sealed, 0))).toBeNull();
      expect(cipher().open(key, iv, aad, flipped(sealed, sealed.length - 1))).toBeNull();
      expect(cipher().open(randomBytes(32), iv, aad, sealed)).toBeNull();
      expect(cipher().open(key, flipped(iv, 3), aad, sealed)).toBeNull();
      expect(cipher().open(key, iv, flipped(aad, 5), sealed)).toBeNull();
      expect(cipher().open(key, iv, aad, sealed.subarray(0, sealed.length - 1))).toBeNull();
      expect(cipher().open(key, iv, aad, sealed.subarray(0, 15))).toBeNull();
      // A refusal leaves nothing behind: the next message opens.
      expect(cipher().open(key, iv, aad, sealed)).toBe(plain);
    });

    it('refuses a key or an IV of another length before touching it', () => {
      expect(() => cipher().seal(randomBytes(16), iv, aad, 'x')).toThrow(RangeError);
      expect(() => cipher().seal(key, randomBytes(16), aad, 'x')).toThrow(RangeError);
      expect(() => cipher().open(randomBytes(31), iv, aad, randomBytes(40))).toThrow(RangeError);
      expect(() => cipher().open(key, randomBytes(8), aad, randomBytes(40))).toThrow(RangeError);
    });

    it('answers strings of their own: an answer is not changed by the messages after it', () => {
      const first = cipher().open(key, iv, aad, reference(key, iv, aad, 'first message'));
      cipher().open(key, iv, aad, reference(key, iv, aad, 'a second, longer message'));
      cipher().seal(key, iv, aad, 'x'.repeat(10_000));
      expect(first).toBe('first message');
    });
  });
}
