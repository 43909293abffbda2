/**
 * X-Hub-Signature-256: `sha256=` and the hex HMAC-SHA256 of the body's bytes with the app secret. Meta
 * publishes no worked example with a secret, a body and its signature, so the digest is checked against
 * RFC 4231's HMAC-SHA256 test case 2, and the check against tampered bodies, other secrets and
 * missing or malformed headers.
 */
import { hasValidSignature, signatureOf } from '../../../infrastructure/whatsapp/signature';

describe('WhatsApp webhook signature', () => {
  const secret = 'app-secret-0123456789abcdef';
  const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');

  it('is the hex HMAC-SHA256 of the body with the secret (RFC 4231, test case 2)', () => {
    expect(signatureOf('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('holds for the body as signed, whatever the case of its hex digits', () => {
    const signature = signatureOf(secret, body);
    expect(hasValidSignature(secret, body, signature)).toBe(true);
    expect(hasValidSignature(secret, body, signature.toUpperCase().replace('SHA256', 'sha256'))).toBe(true);
  });

  it('refuses a tampered body, another secret, and a missing, empty or malformed header', () => {
    const signature = signatureOf(secret, body);
    const tampered = Buffer.from(body.toString().replace('[]', '[{}]'));
    expect(hasValidSignature(secret, tampered, signature)).toBe(false);
    expect(hasValidSignature('another-secret', body, signature)).toBe(false);
    expect(hasValidSignature(secret, body, undefined)).toBe(false);
    expect(hasValidSignature(secret, body, '')).toBe(false);
    expect(hasValidSignature(secret, body, signature.replace('sha256=', ''))).toBe(false);
    expect(hasValidSignature(secret, body, signature.replace('sha256=', 'sha1='))).toBe(false);
    expect(hasValidSignature('', body, signatureOf('', body))).toBe(false);
  });
});
