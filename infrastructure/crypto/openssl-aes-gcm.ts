/**
 * AES-256-GCM (application/privacy/aes-gcm.ts) through the OpenSSL the Node process itself is built
 * with, called through koffi: Node exports its OpenSSL's functions for native add-ons, so nothing is
 * loaded but the running executable, and the cipher is the very code node:crypto runs. What it saves is
 * node:crypto's making of a stream object and a native cipher for every message: here one cipher
 * context per direction is made once per thread and given the next key and IV each time
 * (`EVP_EncryptInit_ex` with no cipher keeps the one set before), about 3 µs a message instead of 8 to
 * 13 (bench/customers.ts).
 *
 * `opensslAesGcm()` answers null, and the service keeps node:crypto, when the process does not export
 * those functions (another build of Node) or when a known-answer check against node:crypto fails at
 * load. Every length is checked before a call: the native side reads and writes exactly the lengths
 * given, from buffers at least that long.
 */
import { createRequire } from 'node:module';
import { createCipheriv, randomBytes } from 'node:crypto';
import type * as Koffi from 'koffi' with { 'resolution-mode': 'import' };
import { assertKeyAndIv, nodeAesGcm, TAG_BYTES, type AesGcm } from '../../application/privacy/aes-gcm';

// koffi's types are those of its ES module; its CommonJS entry is the same API.
const koffi = createRequire(__filename)('koffi') as typeof Koffi;

// From OpenSSL's evp.h.
const EVP_CTRL_GCM_GET_TAG = 0x10;
const EVP_CTRL_GCM_SET_TAG = 0x11;

/** Past this, a message's buffer is its own rather than kept for the next ones. */
const MAX_KEPT_BYTES = 1 << 20;

/** A buffer of at least `bytes`, kept and grown (to twice what was asked, up to a bound) as messages need. */
class Scratch {
  private buffer = Buffer.alloc(4096);
  atLeast(bytes: number): Buffer {
    if (bytes <= this.buffer.length) return this.buffer;
    if (bytes > MAX_KEPT_BYTES) return Buffer.alloc(bytes);
    this.buffer = Buffer.alloc(Math.min(bytes * 2, MAX_KEPT_BYTES));
    return this.buffer;
  }
}

function load(): AesGcm {
  const lib = koffi.load(null);
  const newContext = lib.func('void *EVP_CIPHER_CTX_new()');
  const aes256Gcm = lib.func('const void *EVP_aes_256_gcm()');
  const encryptInit = lib.func(
    'int EVP_EncryptInit_ex(void *ctx, const void *cipher, void *engine, const uint8_t *key, const uint8_t *iv)',
  );
  const encryptUpdate = lib.func(
    'int EVP_EncryptUpdate(void *ctx, uint8_t *out, int32_t *outLength, const uint8_t *in, int inLength)',
  );
  const encryptFinal = lib.func('int EVP_EncryptFinal_ex(void *ctx, uint8_t *out, int32_t *outLength)');
  const decryptInit = lib.func(
    'int EVP_DecryptInit_ex(void *ctx, const void *cipher, void *engine, const uint8_t *key, const uint8_t *iv)',
  );
  const decryptUpdate = lib.func(
    'int EVP_DecryptUpdate(void *ctx, uint8_t *out, int32_t *outLength, const uint8_t *in, int inLength)',
  );
  const decryptFinal = lib.func('int EVP_DecryptFinal_ex(void *ctx, uint8_t *out, int32_t *outLength)');
  const control = lib.func('int EVP_CIPHER_CTX_ctrl(void *ctx, int type, int arg, uint8_t *ptr)');
  const clearErrors = lib.func('void ERR_clear_error()');

  const sealing = newContext();
  const opening = newContext();
  if (!sealing || !opening) throw new Error('EVP_CIPHER_CTX_new failed');
  // The cipher is set once; each message sets its key and IV only (12 bytes: GCM's default length).
  if (encryptInit(sealing, aes256Gcm(), null, null, null) !== 1) throw new Error('EVP_EncryptInit_ex failed');
  if (decryptInit(opening, aes256Gcm(), null, null, null) !== 1) throw new Error('EVP_DecryptInit_ex failed');

  const written = new Int32Array(1);
  const plainBytes = new Scratch();
  const output = new Scratch();
  const tag = Buffer.alloc(TAG_BYTES);
  const fail = (step: string): never => {
    clearErrors();
    throw new Error(`OpenSSL ${step} failed`);
  };

  return {
    name: `OpenSSL of the process (${lib.func('const char *OpenSSL_version(int type)')(0) as string})`,
    seal(key, iv, aad, plain) {
      assertKeyAndIv(key, iv);
      // At most three bytes per UTF-16 unit.
      const input = plainBytes.atLeast(plain.length * 3);
      const length = input.write(plain, 0, 'utf8');
      const out = output.atLeast(length + TAG_BYTES);
      if (encryptInit(sealing, null, null, key, iv) !== 1) fail('EncryptInit');
      if (encryptUpdate(sealing, null, written, aad, aad.length) !== 1) fail('EncryptUpdate (associated data)');
      if (encryptUpdate(sealing, out, written, input, length) !== 1) fail('EncryptUpdate');
      if (written[0] !== length) fail('EncryptUpdate (length)');
      // GCM writes nothing at the end; `tag` has room should it ever write a block.
      if (encryptFinal(sealing, tag, written) !== 1 || written[0] !== 0) fail('EncryptFinal');
      if (control(sealing, EVP_CTRL_GCM_GET_TAG, TAG_BYTES, tag) !== 1) fail('getting the tag');
      tag.copy(out, length);
      return out.toString('base64', 0, length + TAG_BYTES);
    },
    open(key, iv, aad, sealed) {
      assertKeyAndIv(key, iv);
      if (sealed.length < TAG_BYTES) return null;
      const length = sealed.length - TAG_BYTES;
      const out = output.atLeast(length);
      sealed.copy(tag, 0, length);
      if (decryptInit(opening, null, null, key, iv) !== 1) fail('DecryptInit');
      if (decryptUpdate(opening, null, written, aad, aad.length) !== 1) fail('DecryptUpdate (associated data)');
      if (decryptUpdate(opening, out, written, sealed, length) !== 1) fail('DecryptUpdate');
      if (written[0] !== length) fail('DecryptUpdate (length)');
      if (control(opening, EVP_CTRL_GCM_SET_TAG, TAG_BYTES, tag) !== 1) fail('setting the tag');
      // GCM writes nothing at the end (the tag was copied in above; `tag` has room for a block).
      if (decryptFinal(opening, tag, written) !== 1) {
        // The tag does not match: altered, or another key or associated data.
        clearErrors();
        return null;
      }
      if (written[0] !== 0) fail('DecryptFinal');
      return out.toString('utf8', 0, length);
    },
  };
}

/**
 * Whether `candidate` seals as node:crypto does and opens what node:crypto sealed (and refuses it
 * altered), on messages of a few lengths.
 */
function agreesWithNode(candidate: AesGcm): boolean {
  for (const length of [0, 1, 15, 16, 17, 100, 5000]) {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const aad = randomBytes(length % 40);
    const plain = 'ह'.repeat(length % 7) + 'x'.repeat(length);
    const expected = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
    const body = Buffer.concat([expected.update(plain, 'utf8'), expected.final(), expected.getAuthTag()]);
    if (candidate.seal(key, iv, aad, plain) !== body.toString('base64')) return false;
    if (candidate.open(key, iv, aad, body) !== plain) return false;
    if (nodeAesGcm.open(key, iv, aad, body) !== plain) return false;
    body[body.length - 1] = body[body.length - 1]! ^ 1;
    if (candidate.open(key, iv, aad, body) !== null) return false;
  }
  return true;
}

let loaded: AesGcm | null | undefined;

/** The process's OpenSSL, checked against node:crypto once per thread; null when it cannot be used. */
export function opensslAesGcm(): AesGcm | null {
  if (loaded !== undefined) return loaded;
  try {
    const candidate = load();
    loaded = agreesWithNode(candidate) ? candidate : null;
  } catch {
    loaded = null;
  }
  return loaded;
}

/** The fastest AES-256-GCM this process has: its OpenSSL called directly, else node:crypto. */
export const fastestAesGcm = (): AesGcm => opensslAesGcm() ?? nodeAesGcm;
