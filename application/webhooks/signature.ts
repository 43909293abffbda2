/**
 * The signature receivers check: `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`, with
 * the timestamp (unix seconds) sent beside it, so a captured request cannot be replayed later with a
 * new timestamp. docs/webhooks.md shows a receiver's check.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signWebhook = (secret: string, timestamp: number, body: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

/** A receiver's check, in constant time. */
export function verifyWebhook(secret: string, timestamp: string | number, body: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
