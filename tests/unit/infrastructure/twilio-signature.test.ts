import {
  formParamsOf,
  isTwilioSignatureValid,
  twilioSignature,
  type FormParams,
} from '../../../infrastructure/twilio/signature';

// Twilio's own example (webhooks security docs): auth token 12345, this URL and these parameters.
const token = '12345';
const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const params: FormParams = [
  ['CallSid', 'CA1234567890ABCDE'],
  ['Caller', '+12349013030'],
  ['Digits', '1234'],
  ['From', '+12349013030'],
  ['To', '+18005551212'],
];
const documented = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';

describe('X-Twilio-Signature', () => {
  it("computes Twilio's documented example signature", () => {
    expect(twilioSignature(token, url, params)).toBe(documented);
  });

  it('does not depend on the order the parameters came in', () => {
    expect(twilioSignature(token, url, [...params].reverse())).toBe(documented);
    expect(
      isTwilioSignatureValid(
        token,
        url,
        formParamsOf(new URLSearchParams(params.map(([n, v]) => [n, v])).toString()),
        documented,
      ),
    ).toBe(true);
  });

  it('refuses a tampered parameter, a changed URL, another secret, and no signature', () => {
    const tampered = params.map(([n, v]): [string, string] => (n === 'Digits' ? [n, '9999'] : [n, v]));
    expect(isTwilioSignatureValid(token, url, tampered, documented)).toBe(false);
    expect(isTwilioSignatureValid(token, url, [...params, ['Extra', '1']], documented)).toBe(false);
    expect(isTwilioSignatureValid(token, 'https://mycompany.com/myapp.php?foo=1&bar=3', params, documented)).toBe(
      false,
    );
    expect(isTwilioSignatureValid('54321', url, params, documented)).toBe(false);
    expect(isTwilioSignatureValid(token, url, params, undefined)).toBe(false);
    expect(isTwilioSignatureValid(token, url, params, '')).toBe(false);
    expect(isTwilioSignatureValid(token, url, params, documented.slice(1))).toBe(false);
  });

  it('signs each value of a repeated parameter', () => {
    const repeated: FormParams = [
      ['StatusCallbackEvent', 'ringing'],
      ['StatusCallbackEvent', 'answered'],
    ];
    const signature = twilioSignature(token, url, repeated);
    expect(isTwilioSignatureValid(token, url, repeated, signature)).toBe(true);
    expect(isTwilioSignatureValid(token, url, repeated.slice(0, 1), signature)).toBe(false);
  });
});
