/**
 * Twilio's request signature (X-Twilio-Signature): the base64 HMAC-SHA1, keyed with the account's
 * auth token, of the URL Twilio requested (query string included) followed by each POST parameter's
 * name and value, the parameters sorted by name; a name sent more than once adds each of its values,
 * in the order of the values (as Twilio's helper libraries sign them), so the order they came in
 * does not matter.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Form parameters in the order they came, a repeated name once per value. */
export type FormParams = readonly (readonly [string, string])[];

export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature';

/** The signature Twilio sends with a POST of `params` to `url`. */
export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  const signed = [...params]
    .sort(([a, x], [b, y]) => byCodeUnits(a, b) || byCodeUnits(x, y))
    .reduce((text, [name, value]) => text + name + value, url);
  return createHmac('sha1', authToken).update(signed, 'utf8').digest('base64');
}

/** Code-unit order, as Twilio's helpers sort (not the locale's). */
function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Whether `signature` is Twilio's for this request, compared in constant time. */
export function isTwilioSignatureValid(
  authToken: string,
  url: string,
  params: FormParams,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The parameters of a form-encoded body, in the order they came. */
export const formParamsOf = (body: string): FormParams => [...new URLSearchParams(body)];
