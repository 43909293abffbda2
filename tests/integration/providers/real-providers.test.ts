/**
 * The real providers' adapters in the running service, used over HTTP as a client and the providers
 * use them: an organization connects its Twilio and WhatsApp accounts, imports a Twilio number, and
 * calls and chats with its customers through them. Stand-ins of Twilio's REST API and of the WhatsApp
 * Graph API take the calls and messages and post their signed webhooks to the service's PUBLIC_URL,
 * which the service is started on (a port chosen before it starts).
 *
 * Twilio's stand-in plays an outbound call to its end as soon as it is placed, before a media stream
 * could be opened for it: the agent speaking over Media Streams is shown on an incoming call, which
 * stays open until the test posts its end, and whose recording (started by the service's TwiML) the
 * stand-in then reports.
 */
import { chatStreamId } from '../../../application/chats/chat-sending';
import { callStreamId } from '../../../domain/calls/call';
import { signatureOf as whatsappSignatureOf } from '../../../infrastructure/whatsapp/signature';
import { freePort } from '../../support/free-port';
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';
import { signatureOf, TwilioMediaClient } from '../../support/twilio-media-client';
import { silentWav, startTwilioStandIn, twilioSid, type TwilioStandIn } from '../../support/twilio-stand-in';
import { startWhatsAppStandIn, type StandInFate, type WhatsAppStandIn } from '../../support/whatsapp-stand-in';
import { until } from '../../support/until';

jest.setTimeout(120_000);

type Org = { id: string; token: string };
type Params = [string, string][];

const TWILIO = { account_sid: `AC${'4f1e'.repeat(8)}`, auth_token: '9b2c'.repeat(8) };
const ACCOUNT = { accountSid: TWILIO.account_sid, authToken: TWILIO.auth_token };
const WHATSAPP = {
  phone_number_id: '106540352242922',
  business_account_id: '102290129340398',
  access_token: 'EAAG-real-providers-access-token',
  app_secret: '7d3a'.repeat(8),
  verify_token: 'verify-real-providers',
};
const BUSINESS_NUMBER = '15550783881';
const NUMBER = '+14155550123';
const GREETING = 'Hello {{first_name}}, this is Priya from the bank.';
const LINES = ['Your instalment of {{emi_amount}} rupees is due on {{emi_due_date}}.', 'Thank you. Goodbye.'];
const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('real providers (Twilio and WhatsApp stand-ins) over HTTP', () => {
  let publicUrl: string;
  let twilio: TwilioStandIn;
  let whatsapp: WhatsAppStandIn;
  let t: TestService;
  let org: Org;
  let agentId: string;
  let dispositionId: string;
  let campaignId: string;
  const customer = loanRecord('RP-1', { first_name: 'Asha', emi_amount: 5000 });
  const reader = loanRecord('RP-2', { first_name: 'Ravi', emi_amount: 5000 });
  const unreachable = loanRecord('RP-3', { first_name: 'Meera' });
  const fates = new Map<string, StandInFate>([
    [customer.phone_number, 'replied'],
    [unreachable.phone_number, 'failed'],
  ]);

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    twilio = await startTwilioStandIn({ accounts: [{ ...ACCOUNT, incomingNumbers: [NUMBER] }] });
    whatsapp = await startWhatsAppStandIn({
      accessToken: WHATSAPP.access_token,
      appSecret: WHATSAPP.app_secret,
      phoneNumberId: WHATSAPP.phone_number_id,
      businessAccountId: WHATSAPP.business_account_id,
      displayPhoneNumber: BUSINESS_NUMBER,
      // The stand-in sees numbers as digits: Asha answers, Meera's number takes no WhatsApp, Ravi reads.
      fateOf: (to) => fates.get(`+${to}`) ?? 'read',
    });
    t = await startTestService({
      env: {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        TWILIO_API_URL: twilio.url,
        WHATSAPP_GRAPH_URL: whatsapp.url,
        SERVICES: 'speech,agent',
        SPEECH_WORKERS: '1',
      },
    });
    whatsapp.deliverTo(`${publicUrl}/chat/v1/whatsapp/reports`);
    expect(t.url).toBe(publicUrl);

    org = await t.newOrganization('collection');
    expect((await call('PUT', '/providers/twilio', TWILIO)).status).toBe(200);
    expect((await call('PUT', '/providers/whatsapp', WHATSAPP)).status).toBe(200);
    const imported = await call('POST', '/numbers/import', [{ number: NUMBER, provider: 'twilio' }]);
    expect(imported.body).toEqual({ success: true, data: [{ number: NUMBER, success: true, error: null }] });
    const agent = await call('POST', '/agents', { name: 'Priya', language: 'en', greeting: GREETING, lines: LINES });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    dispositionId = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    campaignId = (await call('POST', '/campaigns/create', { name: 'April EMI', campaignType: 'emi' })).body.data.id;
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.close();
    await whatsapp?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: org.token, body });
  const callLogs = async (): Promise<Record<string, any>[]> => (await call('GET', '/logs?type=call')).body.data;
  const callEntry = async (callId: string) => (await call('GET', `/communication/call/${callId}`)).body?.data;
  const chatEntry = async (messageId: string) => (await call('GET', `/communication/chat/${messageId}`)).body?.data;
  const auditOf = async (stream: string): Promise<{ type: string; data: Record<string, any> }[]> => {
    const reply = await call('GET', `/audit/streams/${encodeURIComponent(stream)}`);
    expect(reply.status).toBe(200);
    return reply.body.data;
  };

  const voiceUrl = () => `${publicUrl}/carrier/v1/twilio/voice`;
  const incoming = (callSid: string, from: string): Params => [
    ['AccountSid', ACCOUNT.accountSid],
    ['CallSid', callSid],
    ['CallStatus', 'ringing'],
    ['Direction', 'inbound'],
    ['From', from],
    ['To', NUMBER],
  ];
  /** An incoming call's status callback (configured on the number: no callId in its URL). */
  const statusOf = (callSid: string, from: string, status: string, extra: Params = []) =>
    twilio.post(
      `${publicUrl}/carrier/v1/twilio/reports`,
      [...incoming(callSid, from).filter(([name]) => name !== 'CallStatus'), ['CallStatus', status], ...extra],
      ACCOUNT.authToken,
    );
  /** The stream address and callId parameter of `<Connect><Stream>` TwiML. */
  const streamOf = (twiml: string) => ({
    url: /<Stream url="([^"]+)">/.exec(twiml)?.[1],
    callId: /<Parameter name="callId" value="([^"]+)"\/>/.exec(twiml)?.[1],
  });

  describe('Twilio', () => {
    it('places an outbound call from the imported number; its callbacks complete it, with its duration and recording', async () => {
      const added = await call('POST', '/customers/add', {
        campaignId,
        data: customer,
        initiateCall: true,
        callConfig: { agentId, dispositionId },
      });
      expect(added.status).toBe(201);

      const [entry] = await until(callLogs, (entries) => entries.length === 1 && FINAL.includes(entries[0]!.status));
      expect(entry).toMatchObject({
        type: 'call',
        status: 'Completed',
        duration: twilio.durationSeconds,
        direction: 'outbound',
        from: NUMBER,
        to: customer.phone_number,
        loan_id: customer.loan_id,
        campaign_id: campaignId,
        agent_id: agentId,
      });

      // Placed at Twilio on the organization's account, from the imported number, streaming to the service.
      expect(twilio.calls).toHaveLength(1);
      const [placed] = twilio.calls;
      const params = new URLSearchParams(placed!.params);
      expect(placed!.accountSid).toBe(ACCOUNT.accountSid);
      expect(params.get('From')).toBe(NUMBER);
      expect(params.get('To')).toBe(customer.phone_number);
      expect(streamOf(params.get('Twiml')!)).toEqual({
        url: `${publicUrl.replace('http:', 'ws:')}/carrier/v1/twilio/media`,
        callId: entry!.call_id,
      });
      expect(params.get('StatusCallback')).toBe(`${publicUrl}/carrier/v1/twilio/reports?callId=${entry!.call_id}`);
      await twilio.idle();
      expect(twilio.callbacks.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);

      const history = await auditOf(callStreamId(entry!.call_id));
      expect(history.find((e) => e.type === 'CallDialed')?.data).toMatchObject({ provider: 'twilio' });

      // The recording Twilio served, fetched once, is the call's.
      const recorded = await until(
        () => callEntry(entry!.call_id),
        (e) => Boolean(e?.recording_id),
      );
      expect(recorded.recording_id).toMatch(/^twilio-RE[0-9a-f]{32}$/);
      expect(twilio.recordingFetches).toBe(1);
      const recording = await fetch(`${t.url}/api/v1/recording/${recorded.recording_id}`, {
        headers: { authorization: `Bearer ${org.token}` },
      });
      expect(recording.status).toBe(200);
      expect(recording.headers.get('content-type')).toBe('audio/wav');
      expect(Buffer.from(await recording.arrayBuffer())).toEqual(silentWav());
    });

    it("answers an incoming call with the media stream, matched to the caller's customer; the agent speaks its lines into it, and it is recorded", async () => {
      const set = await call('PUT', `/numbers/${encodeURIComponent(NUMBER)}/inbound`, { agentId, dispositionId });
      expect(set.status).toBe(200);
      const callSid = twilioSid('CA');
      const answer = await twilio.post(voiceUrl(), incoming(callSid, customer.phone_number), ACCOUNT.authToken);
      expect(answer.status).toBe(200);
      // The call is recorded from the start, then connected to the media stream.
      expect(answer.body).toContain('<Response><Start><Recording ');
      expect(answer.body).toContain('</Start><Connect><Stream');
      const stream = streamOf(answer.body);
      expect(stream).toEqual({
        url: `${publicUrl.replace('http:', 'ws:')}/carrier/v1/twilio/media`,
        callId: expect.any(String),
      });

      const received = await until(
        () => callEntry(stream.callId!),
        (e) => e !== undefined,
      );
      expect(received).toMatchObject({
        direction: 'inbound',
        from: customer.phone_number,
        to: NUMBER,
        loan_id: customer.loan_id,
        campaign_id: campaignId,
        name: `${customer.first_name} ${customer.last_name}`,
      });

      // Twilio opens the stream of the TwiML, signed with the account's token; the agent speaks and hangs up.
      const media = await TwilioMediaClient.connect(stream.url!, {
        signature: signatureOf(ACCOUNT.authToken, stream.url!),
        speed: Infinity,
      });
      media.start({ callId: stream.callId!, accountSid: ACCOUNT.accountSid });
      expect(await media.closed).toEqual({ code: 1000, reason: 'agent finished speaking' });
      expect(media.lines().map((line) => line.mark)).toEqual(['line-0', 'line-1', 'line-2']);
      expect(media.media().length).toBeGreaterThan(0);

      expect((await statusOf(callSid, customer.phone_number, 'in-progress')).status).toBe(200);
      expect((await statusOf(callSid, customer.phone_number, 'completed', [['CallDuration', '12']])).status).toBe(200);
      const ended = await until(
        () => callEntry(stream.callId!),
        (e) => FINAL.includes(e?.status) && Boolean(e?.transcript_id),
      );
      expect(ended).toMatchObject({ status: 'Completed', duration: 12, direction: 'inbound' });
      const transcript = await call('GET', `/transcript/${ended.transcript_id}`);
      expect(transcript.status).toBe(200);
      expect(
        transcript.body.data.filter((turn: any) => turn.speaker === 'BOT').map((turn: any) => turn.message),
      ).toEqual([
        `Hello ${customer.first_name}, this is Priya from the bank.`,
        // Amounts are spoken and sent as the service formats them.
        `Your instalment of 5,000 rupees is due on ${customer.emi_due_date}.`,
        'Thank you. Goodbye.',
      ]);
      expect((await callLogs()).filter((e) => e.direction === 'inbound').map((e) => e.call_id)).toContain(
        stream.callId,
      );

      // Twilio reports the recording the TwiML started, twice (a retry): it is fetched and attached once.
      const fetchesBefore = twilio.recordingFetches;
      const callbacksBefore = twilio.callbacks.length;
      twilio.repeat = true;
      const recordingSid = await twilio
        .completeRecording(answer.body, { accountSid: ACCOUNT.accountSid, callSid })
        .finally(() => (twilio.repeat = false));
      expect(recordingSid).toMatch(/^RE[0-9a-f]{32}$/);
      expect(twilio.callbacks.slice(callbacksBefore).map((c) => [c.url, c.status])).toEqual([
        [`${publicUrl}/carrier/v1/twilio/reports?callId=${stream.callId}&kind=recording`, 200],
        [`${publicUrl}/carrier/v1/twilio/reports?callId=${stream.callId}&kind=recording`, 200],
      ]);
      const recorded = await until(
        () => callEntry(stream.callId!),
        (e) => Boolean(e?.recording_id),
      );
      expect(recorded).toMatchObject({ recording_id: `twilio-${recordingSid}`, direction: 'inbound' });
      expect(twilio.recordingFetches - fetchesBefore).toBe(1);
      const attached = (await auditOf(callStreamId(stream.callId!))).filter(
        (e) => e.type === 'CallMediaAttached' && e.data.recordingId !== undefined,
      );
      expect(attached.map((e) => e.data.recordingId)).toEqual([`twilio-${recordingSid}`]);
      const recording = await fetch(`${t.url}/api/v1/recording/${recorded.recording_id}`, {
        headers: { authorization: `Bearer ${org.token}` },
      });
      expect(recording.status).toBe(200);
      expect(recording.headers.get('content-type')).toBe('audio/wav');
      expect(Buffer.from(await recording.arrayBuffer())).toEqual(silentWav());
    });

    it('rejects an incoming call from a blacklisted caller', async () => {
      const caller = uniquePhone('+1415');
      expect((await call('POST', '/blacklist/bulk/add', [{ number: caller, name: 'Do not call' }])).status).toBe(200);
      const answer = await twilio.post(voiceUrl(), incoming(twilioSid('CA'), caller), ACCOUNT.authToken);
      expect(answer).toEqual({
        status: 200,
        body: '<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="rejected"/></Response>',
      });
      const [refused] = await until(
        async () => (await callLogs()).filter((e) => e.from === caller),
        (entries) => entries.length === 1,
      );
      expect(refused).toMatchObject({ direction: 'inbound', status: 'Failed', to: NUMBER });
    });

    it('refuses a webhook signed with another token (403), recording nothing', async () => {
      const before = (await callLogs()).length;
      const forged = await twilio.post(voiceUrl(), incoming(twilioSid('CA'), customer.phone_number), '0'.repeat(32));
      expect(forged.status).toBe(403);
      expect((await callLogs()).length).toBe(before);
    });
  });

  describe('WhatsApp', () => {
    let templateId: string;
    let chatCampaignId: string;
    const chatsOf = async (): Promise<Record<string, any>[]> =>
      (await call('GET', `/logs?type=chat&campaign_id=${chatCampaignId}`)).body.data;
    const byPhone = (entries: Record<string, any>[], phone: string) => entries.find((e) => e.to === phone)!;

    beforeAll(async () => {
      const template = await call('POST', '/chat/templates', {
        name: 'emi_reminder',
        language: 'en',
        body: 'Hello {{first_name}}, your EMI of {{emi_amount}} is due on {{emi_due_date}}.',
      });
      expect(template.status).toBe(201);
      templateId = template.body.data.id;
      chatCampaignId = (await call('POST', '/campaigns/create', { name: 'April chats', campaignType: 'emi' })).body.data
        .id;
      const added = await call('POST', '/customers/add/bulk', {
        campaignId: chatCampaignId,
        records: [customer, reader, unreachable],
      });
      expect(added.status).toBe(201);
      expect((await call('POST', `/initiate/${chatCampaignId}/chat`, { templateId })).status).toBe(200);
      await until(chatsOf, (entries) => entries.length === 3 && entries.every((e) => e.platform_msg_id !== ''));
      await until(
        async () => {
          await whatsapp.idle();
          return chatsOf();
        },
        (entries) =>
          byPhone(entries, reader.phone_number)?.status === 'Read' &&
          byPhone(entries, unreachable.phone_number)?.status === 'Failed',
      );
      await whatsapp.idle();
    });

    it('sends each customer the template by name with its body parameters, from the connected number', async () => {
      const sent = whatsapp.requests.map((r) => r.sent as Record<string, any>);
      // The stand-in takes a send only to the connected phone number id, with the account's token.
      expect(whatsapp.requests.map((r) => r.status)).toEqual([200, 200, 200]);
      const toReader = sent.find((body) => body.to === reader.phone_number.slice(1));
      expect(toReader).toMatchObject({
        messaging_product: 'whatsapp',
        type: 'template',
        template: {
          name: 'emi_reminder',
          language: { code: 'en' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: reader.first_name },
                { type: 'text', text: '5,000' },
                { type: 'text', text: reader.emi_due_date },
              ],
            },
          ],
        },
      });
      const entry = byPhone(await chatsOf(), reader.phone_number);
      expect(entry).toMatchObject({ status: 'Read', direction: 'outbound', loan_id: reader.loan_id });
      const history = await auditOf(chatStreamId(entry.message_id));
      expect(history.find((e) => e.type === 'ChatDispatched')?.data).toMatchObject({ provider: 'whatsapp' });
    });

    it("keeps WhatsApp's error object of a message it could not deliver, as sent", async () => {
      const entry = byPhone(await chatsOf(), unreachable.phone_number);
      expect(entry.status).toBe('Failed');
      const detail = await chatEntry(entry.message_id);
      expect(detail.errors).toEqual(whatsapp.errorsOf(entry.platform_msg_id));
      expect(detail.errors).toEqual([expect.objectContaining({ code: 131026, title: 'Message undeliverable' })]);
    });

    it("records a customer's reply once, and a replayed webhook changes nothing", async () => {
      const entry = await until(
        async () => byPhone(await chatsOf(), customer.phone_number),
        (e) => e?.conversation?.some((m: any) => m.role === 'user'),
      );
      const detail = await chatEntry(entry.message_id);
      expect(detail.status).toBe('Read');
      expect(detail.conversation.filter((m: any) => m.role === 'user')).toEqual([
        expect.objectContaining({ content: 'Yes, I will pay on Friday.' }),
      ]);
      const history = await auditOf(chatStreamId(entry.message_id));

      await whatsapp.replay(entry.platform_msg_id);
      await whatsapp.idle();
      const replayed = whatsapp.webhooks.filter((w) => w.wamid === entry.platform_msg_id);
      expect(replayed.length).toBeGreaterThanOrEqual(4);
      expect(replayed.every((w) => w.answers.length === 2 && w.answers.every((status) => status === 200))).toBe(true);
      expect(await auditOf(chatStreamId(entry.message_id))).toEqual(history);
      expect(await chatEntry(entry.message_id)).toEqual(detail);
    });

    it('refuses a webhook signed with another secret (403), and takes it signed with the app secret', async () => {
      const body = JSON.stringify(whatsapp.webhooks[0]!.payload);
      const post = (signature: string) =>
        fetch(`${publicUrl}/chat/v1/whatsapp/reports`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body,
        });
      expect((await post(whatsappSignatureOf('f'.repeat(32), body))).status).toBe(403);
      expect((await post(whatsappSignatureOf(WHATSAPP.app_secret, body))).status).toBe(200);
    });
  });
});
