/**
 * Twilio's webhooks: signed callbacks move the call and attach its recording; unsigned, wrongly signed
 * or tampered ones are refused with nothing recorded; callbacks Twilio sends again change nothing; an
 * incoming call is offered once per CallSid, and recorded like a dialed one.
 */
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { InboundCalls } from '../../../application/calls/inbound-calls';
import { recordingBlobKey } from '../../../application/calls/recording-key';
import { CommandHandler } from '../../../application/command-handler';
import { callDecider, callStreamId, type CallEvent } from '../../../domain/calls/call';
import { phoneNumberDecider, phoneNumberStreamId } from '../../../domain/numbers/owned-number';
import { MemoryBlobStore } from '../../../infrastructure/memory/memory-blob-store';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { twilioSignature } from '../../../infrastructure/twilio/signature';
import { twilioCarrier } from '../../../infrastructure/twilio/twilio-carrier';
import { startTwilioStandIn, twilioSid, type TwilioStandIn } from '../../support/twilio-stand-in';
import { startTwilioApp, twilioAccounts, type TwilioApp } from './twilio-app';

const mine = { accountSid: twilioSid('AC'), authToken: 'token-mine' };
const theirs = { accountSid: twilioSid('AC'), authToken: 'token-theirs' };
const accounts = twilioAccounts({ o1: mine, o2: theirs });
const at = '2026-03-01T10:00:00.000Z';

describe('Twilio webhooks', () => {
  let events: MemoryEventStore;
  let commands: CommandHandler;
  let blobs: MemoryBlobStore;
  let standIn: TwilioStandIn;
  let app: TwilioApp;

  beforeEach(async () => {
    events = new MemoryEventStore();
    commands = new CommandHandler(events);
    blobs = new MemoryBlobStore();
    const reports = new CarrierReports(commands);
    const inbound = new InboundCalls({
      commands,
      reports,
      player: 'replica-a',
      lookups: {
        organizationType: async () => 'collection',
        customer: async () => null,
        agent: async () => ({ name: 'Priya', language: 'en', voiceId: 'v1' }),
        dispositions: async () => [{ id: 'd1', name: 'Promise to pay' }],
        customersByPhone: async () => [],
      },
    });
    standIn = await startTwilioStandIn({ accounts: [mine, theirs] });
    app = await startTwilioApp({ accounts, commands, reports, blobs, inbound, twilioApiUrl: standIn.url });
  });
  afterEach(async () => {
    await standIn.close();
    await app.close();
  });

  const stream = async (callId: string) =>
    (await events.readStream(callStreamId(callId))).map((e) => ({ type: e.type, data: e.data }) as CallEvent);

  async function dial(callId: string, to = '+14155550123', organizationId = 'o1'): Promise<void> {
    const context = { organizationId, actor: 'test', requestId: `r-${callId}` };
    await commands.handle(
      callDecider,
      callStreamId(callId),
      {
        type: 'RequestCall',
        callId,
        at,
        organizationId,
        campaignId: 'c1',
        campaignName: 'March',
        customerKeyField: 'loan_id',
        customerKey: 'L-1',
        customerName: 'Asha Rao',
        to,
        from: '+14155550100',
        agentId: 'a1',
        dispositionId: 'd1',
        language: 'en',
      },
      context,
    );
    await commands.handle(
      callDecider,
      callStreamId(callId),
      { type: 'DialCall', provider: 'twilio', at, blacklist: { listed: false, revision: -1 } },
      context,
    );
    await twilioCarrier({ accounts, config: app.config }).dial({
      callId,
      organizationId,
      organizationType: 'collection',
      from: '+14155550100',
      to,
      language: 'en',
      at,
      agent: { name: 'Priya', voiceId: 'v1' },
      customer: {},
      dispositions: [],
    });
    await standIn.idle();
  }

  const reportsUrl = (callId: string) => `${app.url}/carrier/v1/twilio/reports?callId=${callId}`;
  const ringing = (callSid = twilioSid('CA')): [string, string][] => [
    ['AccountSid', mine.accountSid],
    ['CallSid', callSid],
    ['CallStatus', 'in-progress'],
    ['Timestamp', 'Sun, 01 Mar 2026 10:00:05 +0000'],
  ];

  it('plays a call: every signed callback is taken, the call ends Completed and its recording is attached', async () => {
    await dial('k1');
    expect(standIn.callbacks.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    expect(standIn.callbacks[0]!.body).toContain('<Response/>');
    const calls = await stream('k1');
    expect(calls.map((e) => e.type)).toEqual([
      'CallQueued',
      'CallDialed',
      'CallRinging',
      'CallAnswered',
      'CallEnded',
      'CallMediaAttached',
    ]);
    expect(calls[4]!.data).toMatchObject({ status: 'Completed', durationSeconds: 42, reason: 'completed' });
    const { recordingId } = calls[5]!.data as { recordingId: string };
    expect(recordingId).toMatch(/^twilio-RE[0-9a-f]{32}$/);
    expect(await blobs.stat(recordingBlobKey(recordingId))).toEqual({ size: 16044, contentType: 'audio/wav' });
    expect(standIn.recordingFetches).toBe(1);
  });

  it('changes nothing, and fetches the recording once, when Twilio sends every callback twice', async () => {
    standIn.repeat = true;
    await dial('k1');
    expect(standIn.callbacks).toHaveLength(10);
    expect(standIn.callbacks.every((c) => c.status === 200)).toBe(true);
    const types = (await stream('k1')).map((e) => e.type);
    expect(types.filter((t) => t === 'CallEnded')).toHaveLength(1);
    expect(types.filter((t) => t === 'CallMediaAttached')).toHaveLength(1);
    expect(types).toHaveLength(6);
    expect(standIn.recordingFetches).toBe(1);
  });

  it('ends a busy call without contact', async () => {
    standIn.outcomeFor('+14155550199', 'busy');
    await dial('k2', '+14155550199');
    const calls = await stream('k2');
    expect(calls.at(-1)).toMatchObject({ type: 'CallEnded', data: { status: 'No Contact', reason: 'busy' } });
    expect(standIn.recordingFetches).toBe(0);
  });

  describe('refuses a callback it cannot trust, recording nothing', () => {
    const refused = async (response: Response) => {
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        success: false,
        error: 'Forbidden',
        message: 'Missing or invalid X-Twilio-Signature',
      });
    };
    const post = (url: string, body: string, signature?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(signature !== undefined && { 'X-Twilio-Signature': signature }),
        },
        body,
      });

    it('without a signature, with another secret, or with a tampered body', async () => {
      standIn.outcomeFor('+14155550198', 'failed');
      await dial('k3', '+14155550198');
      const before = await stream('k3');
      const url = reportsUrl('k3');
      const params = ringing();
      const body = new URLSearchParams(params).toString();
      await refused(await post(url, body));
      await refused(await post(url, body, twilioSignature('not-the-token', url, params)));
      const signature = twilioSignature(mine.authToken, url, params);
      await refused(await post(url, body.replace('in-progress', 'completed'), signature));
      await refused(await post(`${url}x`, body, signature));
      expect(await stream('k3')).toEqual(before);
    });

    it('answers 404 for a call it does not know, 403 for a call of another organization', async () => {
      const unknown = await standIn.post(reportsUrl('nobody'), ringing(), mine.authToken);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body)).toMatchObject({ success: false, message: 'Call not found' });

      standIn.outcomeFor('+14155550197', 'no-answer');
      await dial('k4', '+14155550197');
      const before = await stream('k4');
      const params = ringing().map(([n, v]): [string, string] =>
        n === 'AccountSid' ? [n, theirs.accountSid] : [n, v],
      );
      const other = await standIn.post(reportsUrl('k4'), params, theirs.authToken);
      expect(other.status).toBe(403);
      expect(await stream('k4')).toEqual(before);
    });
  });

  describe('incoming calls', () => {
    const number = '+14155550111';
    beforeEach(async () => {
      const context = { organizationId: 'o1', actor: 'test', requestId: 'r-number' };
      await commands.handle(
        phoneNumberDecider,
        phoneNumberStreamId(number),
        {
          type: 'ImportNumber',
          providerConnected: true,
          refusal: null,
          stockedBy: null,
          number,
          country_iso: 'US',
          sms_enabled: false,
          voice_enabled: true,
          provider: 'twilio',
          organizationId: 'o1',
          at,
        },
        context,
      );
      await commands.handle(
        phoneNumberDecider,
        phoneNumberStreamId(number),
        {
          type: 'SetInboundRouting',
          organizationId: 'o1',
          at,
          agentId: 'a1',
          dispositionId: 'd1',
          agentKnown: true,
          dispositionKnown: true,
        },
        context,
      );
    });
    const incoming = (callSid: string, to: string, account = mine): [string, string][] => [
      ['AccountSid', account.accountSid],
      ['CallSid', callSid],
      ['CallStatus', 'ringing'],
      ['Direction', 'inbound'],
      ['From', '+14155550177'],
      ['To', to],
    ];

    it('records the call and connects it to the agent, once, however often Twilio asks', async () => {
      const callSid = twilioSid('CA');
      const voice = `${app.url}/carrier/v1/twilio/voice`;
      const first = await standIn.post(voice, incoming(callSid, number), mine.authToken);
      const again = await standIn.post(voice, incoming(callSid, number), mine.authToken);
      const expected =
        '<?xml version="1.0" encoding="UTF-8"?><Response><Start>' +
        `<Recording recordingStatusCallback="${app.url}/carrier/v1/twilio/reports?callId=twilio-${callSid}&amp;kind=recording"` +
        ' recordingStatusCallbackMethod="POST" recordingStatusCallbackEvent="completed"/></Start><Connect>' +
        `<Stream url="${app.url.replace('http:', 'ws:')}/carrier/v1/twilio/media">` +
        `<Parameter name="callId" value="twilio-${callSid}"/></Stream></Connect></Response>`;
      expect(first).toEqual({ status: 200, body: expected });
      expect(again).toEqual(first);
      const calls = await stream(`twilio-${callSid}`);
      expect(calls.map((e) => e.type)).toEqual(['CallReceived']);
      expect(calls[0]!.data).toMatchObject({ provider: 'twilio', from: '+14155550177', to: number });

      // Its status callbacks (configured on the number, without a callId) end it.
      const ended = await standIn.post(
        `${app.url}/carrier/v1/twilio/reports`,
        [
          ...incoming(callSid, number).filter(([n]) => n !== 'CallStatus'),
          ['CallStatus', 'completed'],
          ['CallDuration', '30'],
        ],
        mine.authToken,
      );
      expect(ended.status).toBe(200);
      expect((await stream(`twilio-${callSid}`)).at(-1)).toMatchObject({
        type: 'CallEnded',
        data: { status: 'Completed', durationSeconds: 30 },
      });

      // The recording the TwiML started is reported (twice: a retry) to the callback it named, and kept once.
      standIn.repeat = true;
      const recordingSid = await standIn.completeRecording(first.body, { accountSid: mine.accountSid, callSid });
      expect(standIn.callbacks.map((c) => c.status)).toEqual([200, 200]);
      const recorded = await stream(`twilio-${callSid}`);
      expect(recorded.map((e) => e.type)).toEqual(['CallReceived', 'CallEnded', 'CallMediaAttached']);
      expect(recorded[2]!.data).toMatchObject({ recordingId: `twilio-${recordingSid}` });
      expect(await blobs.stat(recordingBlobKey(`twilio-${recordingSid}`))).toEqual({
        size: 16044,
        contentType: 'audio/wav',
      });
      expect(standIn.recordingFetches).toBe(1);
    });

    it("refuses a call to a number it does not own, or to another organization's number", async () => {
      const voice = `${app.url}/carrier/v1/twilio/voice`;
      const reject = '<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="rejected"/></Response>';
      const unowned = twilioSid('CA');
      expect(await standIn.post(voice, incoming(unowned, '+14155550000'), mine.authToken)).toEqual({
        status: 200,
        body: reject,
      });
      const elsewhere = twilioSid('CA');
      expect(await standIn.post(voice, incoming(elsewhere, number, theirs), theirs.authToken)).toEqual({
        status: 200,
        body: reject,
      });
      expect(await stream(`twilio-${unowned}`)).toEqual([]);
      expect(await stream(`twilio-${elsewhere}`)).toEqual([]);
      const unsigned = await standIn.post(voice, incoming(twilioSid('CA'), number), 'wrong');
      expect(unsigned.status).toBe(403);
    });
  });
});
