/** Placing calls through Twilio's REST API (the stand-in): what is sent, and how Twilio's refusals and outages come back. */
import type { DialRequest } from '../../../application/ports/telephony';
import { isTransient } from '../../../infrastructure/shared/transient-errors';
import { TwilioRefusedError, TwilioUnavailableError, type Fetch } from '../../../infrastructure/twilio/rest-client';
import { TwilioNotReadyError, twilioCarrier } from '../../../infrastructure/twilio/twilio-carrier';
import { startTwilioStandIn, twilioSid, type TwilioStandIn } from '../../support/twilio-stand-in';
import { twilioAccounts } from '../../integration/twilio/twilio-app';

const account = { accountSid: twilioSid('AC'), authToken: 'token-1' };
const request: DialRequest = {
  callId: 'call-1',
  organizationId: 'o1',
  organizationType: 'collection',
  from: '+14155550100',
  to: '+14155550123',
  language: 'en',
  at: '2026-03-01T10:00:00.000Z',
  agent: { name: 'Priya', voiceId: 'v1' },
  customer: {},
  dispositions: [],
};

describe('the Twilio carrier', () => {
  let standIn: TwilioStandIn;
  beforeEach(async () => {
    standIn = await startTwilioStandIn({ accounts: [account] });
  });
  afterEach(() => standIn.close());

  const carrier = (
    accounts = twilioAccounts({ o1: account }),
    publicUrl: string | null = 'https://voice.example.com',
  ) => twilioCarrier({ accounts, config: { publicUrl, twilioApiUrl: standIn.url } });

  it('creates the call connected to the media stream, reporting and recording to the service', async () => {
    const provider = carrier();
    expect(provider.alias).toBe('twilio');
    await provider.dial(request);
    expect(standIn.calls).toHaveLength(1);
    const [call] = standIn.calls;
    expect(call!.accountSid).toBe(account.accountSid);
    const all = (name: string) => call!.params.filter(([n]) => n === name).map(([, v]) => v);
    expect(all('To')).toEqual(['+14155550123']);
    expect(all('From')).toEqual(['+14155550100']);
    expect(all('Twiml')).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>' +
        '<Stream url="wss://voice.example.com/carrier/v1/twilio/media"><Parameter name="callId" value="call-1"/></Stream>' +
        '</Connect></Response>',
    ]);
    expect(all('StatusCallback')).toEqual(['https://voice.example.com/carrier/v1/twilio/reports?callId=call-1']);
    expect(all('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(all('StatusCallbackMethod')).toEqual(['POST']);
    expect(all('Record')).toEqual(['true']);
    expect(all('RecordingStatusCallback')).toEqual([
      'https://voice.example.com/carrier/v1/twilio/reports?callId=call-1&kind=recording',
    ]);
    expect(all('RecordingStatusCallbackEvent')).toEqual(['completed']);
  });

  it('connects the media stream over ws when PUBLIC_URL is http', async () => {
    await carrier(undefined, 'http://localhost:8080').dial(request);
    const twiml = standIn.calls[0]!.params.find(([n]) => n === 'Twiml')![1];
    expect(twiml).toContain('url="ws://localhost:8080/carrier/v1/twilio/media"');
  });

  it("fails the dial, not transiently, with Twilio's message when Twilio refuses the credentials", async () => {
    const wrong = twilioAccounts({ o1: { ...account, authToken: 'wrong' } });
    const error = await carrier(wrong)
      .dial(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TwilioRefusedError);
    expect(error).toMatchObject({ status: 401, code: 20003, message: 'Twilio error 20003: Authenticate' });
    expect(isTransient(error)).toBe(false);
  });

  it('fails the dial of a number Twilio says is not a phone number', async () => {
    const error = await carrier()
      .dial({ ...request, to: '12' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 21211 });
    expect((error as Error).message).toContain("The 'To' number 12 is not a valid phone number.");
    expect(standIn.calls).toHaveLength(0);
  });

  it('refuses to dial for an organization without a Twilio account, or without PUBLIC_URL', async () => {
    await expect(carrier(twilioAccounts({})).dial(request)).rejects.toThrow(
      new TwilioNotReadyError('The twilio provider is not connected for this organization'),
    );
    await expect(carrier(undefined, null).dial(request)).rejects.toThrow(/PUBLIC_URL is not set/);
    expect(standIn.calls).toHaveLength(0);
  });

  it('marks a Twilio 5xx, and Twilio out of reach, as passing', async () => {
    const unavailable: Fetch = async () =>
      new Response(JSON.stringify({ code: 20500, message: 'Internal Server Error', status: 500 }), { status: 500 });
    const down = twilioCarrier({
      accounts: twilioAccounts({ o1: account }),
      config: { publicUrl: 'https://voice.example.com', twilioApiUrl: standIn.url },
      fetch: unavailable,
    });
    const error = await down.dial(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TwilioUnavailableError);
    expect(isTransient(error)).toBe(true);

    const closed = twilioCarrier({
      accounts: twilioAccounts({ o1: account }),
      config: { publicUrl: 'https://voice.example.com', twilioApiUrl: 'http://127.0.0.1:1' },
    });
    const refused = await closed.dial(request).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TwilioUnavailableError);
    expect(isTransient(refused)).toBe(true);
  });
});
