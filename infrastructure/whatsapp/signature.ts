/**
 * Meta signs each webhook with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
 * body's bytes>`. The body must be checked as the bytes that came (a re-serialized JSON differs).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

/** The header's value for `body` signed with `appSecret`. */
export const signatureOf = (appSecret: string, body: Buffer | string): string =>
  `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

/** Whether `header` is the signature of `body` with `appSecret`, compared in constant time. */
export function hasValidSignature(appSecret: string, body: Buffer, header: string | undefined): boolean {
  if (header === undefined || appSecret === '') return false;
  const expected = Buffer.from(signatureOf(appSecret, body));
  const given = Buffer.from(header.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
