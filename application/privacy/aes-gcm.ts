/**
 * AES-256-GCM as personal-data sealing uses it (field-sealing.ts): one message under one key, a 12-byte
 * IV, associated data, a 16-byte tag after the ciphertext. Two implementations give the same bytes:
 * `nodeAesGcm` (node:crypto, always there) and the process's own OpenSSL called directly
 * (infrastructure/crypto/openssl-aes-gcm.ts, chosen at composition when the process offers it), which
 * spends a third of node:crypto's time on a short message: node:crypto makes a stream object and a
 * native cipher for every message, most of a seal's cost when each message has a key of its own.
 * Both pass tests/contract/aes-gcm.contract.ts, and each opens what the other sealed.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

export interface AesGcm {
  /** What it runs on, for the service's start-up line and the benchmarks. */
  readonly name: string;
  /**
   * `plain` (its UTF-8 bytes) sealed under `key` (32 bytes) with `iv` (12 bytes) and `aad`: the
   * ciphertext followed by its tag, in base64.
   */
  seal(key: Buffer, iv: Buffer, aad: Buffer, plain: string): string;
  /**
   * The UTF-8 text sealed in `sealed` (ciphertext then tag) under `key`, `iv` and `aad`; null when it
   * does not open with them (altered, another key, other associated data).
   */
  open(key: Buffer, iv: Buffer, aad: Buffer, sealed: Buffer): string | null;
}

/** Throws unless the key and IV have the lengths AES-256-GCM is used with here. */
export function assertKeyAndIv(key: Buffer, iv: Buffer): void {
  if (key.length !== KEY_BYTES) throw new RangeError(`An AES-256 key is ${KEY_BYTES} bytes, not ${key.length}`);
  if (iv.length !== IV_BYTES) throw new RangeError(`A GCM IV is ${IV_BYTES} bytes here, not ${iv.length}`);
}

/** The ciphertext and its tag in base64, joined in a buffer reused for every message. */
let joined = Buffer.alloc(4096);
function base64Of(body: Buffer, last: Buffer, tag: Buffer): string {
  const length = body.length + last.length + tag.length;
  if (length > joined.length) joined = Buffer.alloc(length * 2);
  body.copy(joined, 0);
  last.copy(joined, body.length);
  tag.copy(joined, body.length + last.length);
  return joined.toString('base64', 0, length);
}

export const nodeAesGcm: AesGcm = {
  name: 'node:crypto',
  seal(key, iv, aad, plain) {
    assertKeyAndIv(key, iv);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(aad);
    const body = cipher.update(plain, 'utf8');
    // GCM is a stream mode: `final` adds no bytes, only checks the state; the tag goes at the end.
    const last = cipher.final();
    return base64Of(body, last, cipher.getAuthTag());
  },
  open(key, iv, aad, sealed) {
    assertKeyAndIv(key, iv);
    if (sealed.length < TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(aad);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const body = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
      const last = decipher.final();
      return last.length === 0 ? body.toString('utf8') : Buffer.concat([body, last]).toString('utf8');
    } catch {
      return null;
    }
  },
};
