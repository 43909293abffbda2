/**
 * Proof of control asked of the providers (the stand-ins of Twilio's REST API and of the Graph API):
 * what counts as shown, as refused, and as the provider being away (which claims nothing and is worth
 * trying again).
 */
import { ProviderUnavailableError } from '../../../application/providers/provider-control';
import { twilioControl } from '../../../infrastructure/twilio/account-control';
import { twilioRestClient, type Fetch } from '../../../infrastructure/twilio/rest-client';
import { whatsappControl } from '../../../infrastructure/whatsapp/account-control';
import { graphClient } from '../../../infrastructure/whatsapp/graph-client';
import { startTwilioStandIn, twilioSid, type TwilioStandIn } from '../../support/twilio-stand-in';
import { startWhatsAppStandIn, type WhatsAppStandIn } from '../../support/whatsapp-stand-in';

const account = { accountSid: twilioSid('AC'), authToken: 'a'.repeat(32) };
const NUMBER = '+14155550123';
const WHATSAPP = {
  phoneNumberId: '106540352242922',
  businessAccountId: '102290129340398',
  accessToken: 'EAAG-control-token',
  appSecret: 'b'.repeat(32),
  verifyToken: 'verify',
};
/** A fetch that answers every request with `status` and `body`, as a provider under load does. */
const answering =
  (status: number, body: unknown): Fetch =>
  async () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('proof of control at Twilio', () => {
  let standIn: TwilioStandIn;
  beforeAll(async () => {
    standIn = await startTwilioStandIn({ accounts: [{ ...account, incomingNumbers: [NUMBER, '+14155550999'] }] });
  });
  afterAll(() => standIn.close());
  const control = (fetch?: Fetch) => twilioControl(twilioRestClient({ apiUrl: standIn.url, fetch }));

  it("shows an account to its own credentials only, and a number only when it is one of the account's", async () => {
    expect(await control().account(account)).toEqual({ shown: true });
    expect(await control().account({ ...account, authToken: 'c'.repeat(32) })).toEqual({
      shown: false,
      refusal: 'Twilio refused these credentials for this account SID (Twilio error 20003: Authenticate)',
    });
    expect(await control().number(account, NUMBER)).toEqual({ shown: true });
    // Twilio's filter matches a part of a number: a prefix of one held is not held.
    expect(await control().number(account, '+1415555012')).toEqual({
      shown: false,
      refusal: 'Number not found among the incoming numbers of your Twilio account',
    });
  });

  it('is unavailable when Twilio does not answer, answers 5xx, or throttles', async () => {
    const away = twilioControl(twilioRestClient({ apiUrl: 'http://127.0.0.1:1' }));
    await expect(away.account(account)).rejects.toBeInstanceOf(ProviderUnavailableError);
    const busy = { code: 20429, message: 'Too Many Requests', more_info: '', status: 429 };
    await expect(control(answering(429, busy)).number(account, NUMBER)).rejects.toBeInstanceOf(
      ProviderUnavailableError,
    );
    standIn.outage = true;
    try {
      await expect(control().account(account)).rejects.toThrow(
        'Twilio could not be reached to check the account; nothing was changed, try again',
      );
    } finally {
      standIn.outage = false;
    }
  });
});

describe('proof of control at WhatsApp', () => {
  let standIn: WhatsAppStandIn;
  beforeAll(async () => {
    standIn = await startWhatsAppStandIn({
      accessToken: WHATSAPP.accessToken,
      appSecret: WHATSAPP.appSecret,
      phoneNumberId: WHATSAPP.phoneNumberId,
      businessAccountId: WHATSAPP.businessAccountId,
      displayPhoneNumber: '15550783881',
    });
  });
  afterAll(() => standIn.close());
  const control = (fetch?: typeof globalThis.fetch) =>
    whatsappControl(graphClient({ baseUrl: standIn.url, version: 'v21.0', fetch }));

  it('shows the phone number id under its business account, or as a node the token reads', async () => {
    expect(await control()(WHATSAPP)).toEqual({ shown: true });
    expect(await control()({ ...WHATSAPP, businessAccountId: null })).toEqual({ shown: true });
    expect(await control()({ ...WHATSAPP, phoneNumberId: '999' })).toEqual({
      shown: false,
      refusal: 'The WhatsApp access token does not show this phone number id under business account 102290129340398',
    });
    const refused = await control()({ ...WHATSAPP, accessToken: 'another-token' });
    expect(refused).toEqual({
      shown: false,
      refusal: expect.stringMatching(
        /^The WhatsApp access token does not show this phone number id \(Graph API error 190: /,
      ),
    });
  });

  it('is unavailable when the Graph API does not answer, answers 5xx, or throttles', async () => {
    const away = whatsappControl(graphClient({ baseUrl: 'http://127.0.0.1:1', version: 'v21.0' }));
    await expect(away(WHATSAPP)).rejects.toBeInstanceOf(ProviderUnavailableError);
    const throttled = { error: { message: '(#4) Application request limit reached', type: 'OAuthException', code: 4 } };
    await expect(control(answering(400, throttled))(WHATSAPP)).rejects.toBeInstanceOf(ProviderUnavailableError);
    standIn.outage = true;
    try {
      await expect(control()(WHATSAPP)).rejects.toBeInstanceOf(ProviderUnavailableError);
    } finally {
      standIn.outage = false;
    }
  });
});
