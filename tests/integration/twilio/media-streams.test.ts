/**
 * The agent speaking in a Twilio call over Media Streams, end to end: a stand-in for Twilio opens the
 * media stream WebSocket of the running service (its stores, the real speech engine), as Twilio would
 * for the TwiML of one of our calls, and plays what it is sent. The route is attached to the service's
 * server as the composition root attaches a module's sockets, beside the speech WebSocket.
 */
import { CarrierReports } from '../../../application/calls/carrier-reports';
import { CommandHandler } from '../../../application/command-handler';
import { Lookups } from '../../../application/lookups';
import type { ProviderAccounts, TwilioAccount } from '../../../application/ports/provider-accounts';
import { UnauthenticatedSockets } from '../../../api/http/connection-limits';
import { attachModuleSockets } from '../../../api/sockets/module-sockets';
import { twilioMediaSockets } from '../../../api/carrier/twilio-media-socket';
import { callDecider, callStreamId, type TranscriptTurn } from '../../../domain/calls/call';
import { silentLogger } from '../../../infrastructure/logging/json-logger';
import { createEspeakSpeechEngine, type EspeakSpeechEngine } from '../../../infrastructure/speech';
import { FRAME_BYTES } from '../../../infrastructure/twilio/media/frames';
import { decodeMulaw, encodeMulaw } from '../../../infrastructure/twilio/media/mulaw';
import { mediaStreamUrl, TWILIO_MEDIA_PATH } from '../../../infrastructure/twilio/twiml';
import { agentsProjection } from '../../../projections/agents/agents';
import { customersProjection } from '../../../projections/customers/customers';
import { dispositionGroupsProjection } from '../../../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../../../projections/dispositions/dispositions';
import { organizationsProjection } from '../../../projections/organizations/organizations';
import { SpeechClient } from '../../support/speech';
import { startTestService, type TestService } from '../../support/test-service';
import { signatureOf, TwilioMediaClient } from '../../support/twilio-media-client';

jest.setTimeout(60_000);

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT: TwilioAccount = { accountSid: `AC${'1a'.repeat(16)}`, authToken: 'the-auth-token-of-the-account' };
const GREETING = 'Hello, this is Priya from the bank.';
const LINES = [
  'Your instalment of four thousand rupees is due on the fifth of March, and we would like to remind you of it today.',
  'Thank you for your time. Goodbye.',
];
const SCRIPT = [GREETING, ...LINES];

let t: TestService;
let engine: EspeakSpeechEngine;
let streamAddress: string;
let commands: CommandHandler;
let org: { id: string; token: string };
let voiceId: string;
let agentId: string;

/** The organizations' Twilio accounts: `org`'s is ACCOUNT. */
const accounts: ProviderAccounts = {
  accountOf: async (organizationId, alias) =>
    (alias === 'twilio' && organizationId === org.id ? ACCOUNT : null) as never,
  byAccountId: async () => null,
  hasWhatsAppVerifyToken: async () => false,
};

beforeAll(async () => {
  engine = createEspeakSpeechEngine({ engine: 'js', workers: 2, warmUpRounds: 1 });
  t = await startTestService({ env: { SERVICES: 'agent,speech' }, overrides: { speechEngine: engine } });
  org = await t.newOrganization();
  const agent = await t.request('POST', '/api/v1/agents', {
    token: org.token,
    body: { name: 'Priya', language: 'en', greeting: GREETING, lines: LINES },
  });
  expect(agent.status).toBe(201);
  voiceId = agent.body.data.voiceId;

  const reads = t.service.reads;
  const lookups = new Lookups({
    organizations: await reads.collection(organizationsProjection.collection),
    agents: await reads.collection(agentsProjection.collection),
    customers: await reads.collection(customersProjection.collection),
    dispositions: await reads.collection(dispositionsProjection.collection),
    groups: await reads.collection(dispositionGroupsProjection.collection),
  });
  commands = new CommandHandler(t.service.events);
  const sockets = twilioMediaSockets(
    {
      config: { publicUrl: PUBLIC_URL, mediaStreamStartTimeoutMs: t.service.config.mediaStreamStartTimeoutMs },
      engine,
      commands,
      lookups,
      logger: silentLogger,
      env: t.service.env,
    },
    { accounts, reports: new CarrierReports(commands) },
  );
  attachModuleSockets(t.service.server, sockets, silentLogger, {
    unauthenticated: new UnauthenticatedSockets(t.service.config.unauthenticatedSockets),
  });
  streamAddress = `${t.url.replace('http', 'ws')}${TWILIO_MEDIA_PATH}`;
  agentId = agent.body.data.id;
});

// The service closes its engine.
afterAll(() => t?.stop());

const context = () => ({ organizationId: org.id, actor: 'test', requestId: 'test' });

/**
 * A call of `org`'s agent in Twilio's hands, answered. It comes in (an outbound one would be dialed
 * by the service's own dispatcher, through the built-in carrier, before the test could dial it).
 */
async function answeredCall(): Promise<string> {
  const callId = `call-${Math.random().toString(36).slice(2)}`;
  const stream = callStreamId(callId);
  const at = new Date().toISOString();
  await commands.handle(
    callDecider,
    stream,
    {
      type: 'ReceiveCall',
      callId,
      at,
      provider: 'twilio',
      blacklist: { listed: false, revision: -1 },
      organizationId: org.id,
      campaignId: 'campaign-1',
      campaignName: 'March',
      customerKeyField: 'loan_id',
      customerKey: '',
      customerName: '',
      to: '+919800000001',
      from: '+918000000001',
      agentId,
      dispositionId: 'none',
      language: 'en',
    },
    context(),
  );
  await commands.handle(callDecider, stream, { type: 'RecordCallAnswered', at }, context());
  return callId;
}

/** The transcripts attached to the call, in order. */
async function transcriptsOf(callId: string): Promise<TranscriptTurn[][]> {
  const events = await t.service.events.readStream(callStreamId(callId));
  return events
    .filter((e) => e.type === 'CallMediaAttached')
    .map((e) => (e.data as { transcript?: TranscriptTurn[] }).transcript ?? []);
}

const bot = (lines: string[]) => lines.map((message) => ({ speaker: 'BOT', message }));

/** The engine's own audio of a line, at 8,000 Hz, with the agent's voice. */
async function engineAudio(text: string): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const chunk of engine.synthesize({ text, voiceId, language: 'en', sampleRate: 8000, speed: 1 }))
    parts.push(chunk.pcm);
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) all.set(part, (at += part.length) - part.length);
  return all;
}

const signed = () => signatureOf(ACCOUNT.authToken, mediaStreamUrl(PUBLIC_URL));

describe('Twilio media streams', () => {
  it('speaks each line as 20 ms μ-law frames of the engine’s audio, a mark after each, and hangs up after the last', async () => {
    const callId = await answeredCall();
    const client = await TwilioMediaClient.connect(streamAddress, { signature: signed(), speed: Infinity });
    client.start({ callId, accountSid: ACCOUNT.accountSid });
    const closed = await client.closed;

    expect(closed).toEqual({ code: 1000, reason: 'agent finished speaking' });
    expect(client.media().every((frame) => frame.length === FRAME_BYTES)).toBe(true);
    const lines = client.lines();
    expect(lines.map((line) => line.mark)).toEqual(['line-0', 'line-1', 'line-2']);
    expect(client.echoed).toEqual(lines.map(({ mark }) => ({ name: mark, played: true })));
    for (const [i, text] of SCRIPT.entries()) {
      const pcm = await engineAudio(text);
      const { audio } = lines[i]!;
      // Within 5% of the engine's own duration (the last frame is padded with at most 19.9 ms of silence)...
      expect(Math.abs(audio.length - pcm.length) / pcm.length).toBeLessThan(0.05);
      // ...and exactly its samples in μ-law, the padding silent.
      expect(audio.subarray(0, pcm.length)).toEqual(encodeMulaw(pcm));
      expect(audio.length - pcm.length).toBeLessThan(FRAME_BYTES);
      expect(decodeMulaw(audio.subarray(pcm.length)).every((s) => s === 0)).toBe(true);
    }
    expect(client.sent.some((s) => s.event === 'clear')).toBe(false);
    await expect(until(async () => (await transcriptsOf(callId)).length > 0)).resolves.toBe(true);
    expect(await transcriptsOf(callId)).toEqual([bot(SCRIPT)]);
  });

  it.each([
    ['while its audio plays', 8],
    ['while it is synthesized', Infinity],
  ])(
    'on stop mid-line (%s): clears Twilio’s audio, sends no more frames, and records only the lines whose marks came back',
    async (_when, speed) => {
      const callId = await answeredCall();
      const client = await TwilioMediaClient.connect(streamAddress, { signature: signed(), speed });
      client.start({ callId, accountSid: ACCOUNT.accountSid });
      await client.until(() => client.echoed.some((mark) => mark.name === 'line-0'));
      // The second line is playing, or still being made (its mark has not come back): the call ends.
      expect(client.echoed.map((m) => m.name)).toEqual(['line-0']);
      client.stop();
      const closed = await client.closed;

      expect(closed).toEqual({ code: 1000, reason: 'stream stopped' });
      const clearAt = client.sent.findIndex((s) => s.event === 'clear');
      expect(clearAt).toBeGreaterThan(0);
      expect(client.sent.slice(clearAt + 1).filter((s) => s.event === 'media')).toEqual([]);
      if (speed === Infinity) {
        // Synthesis stopped: far fewer frames than the whole script's.
        const whole = (await Promise.all(SCRIPT.map(engineAudio))).reduce((n, pcm) => n + pcm.length, 0);
        expect(client.media().length * FRAME_BYTES).toBeLessThan(whole / 2);
      }
      await expect(until(async () => (await transcriptsOf(callId)).length > 0)).resolves.toBe(true);
      expect(await transcriptsOf(callId)).toEqual([bot([GREETING])]);
    },
  );

  it('stops speaking when the call hangs up without a stop (the socket closes), recording what was played', async () => {
    const callId = await answeredCall();
    const client = await TwilioMediaClient.connect(streamAddress, { signature: signed(), speed: Infinity });
    client.start({ callId, accountSid: ACCOUNT.accountSid });
    await client.until(() => client.echoed.length >= 2);
    client.close();
    await client.closed;
    await expect(until(async () => (await transcriptsOf(callId)).length > 0)).resolves.toBe(true);
    const [transcript] = await transcriptsOf(callId);
    expect(transcript!.length).toBeGreaterThanOrEqual(2);
    expect(transcript).toEqual(bot(SCRIPT.slice(0, transcript!.length)));
  });

  it.each([
    ['a signature made with another token', () => signatureOf('another-token', mediaStreamUrl(PUBLIC_URL))],
    [
      'a signature of another URL',
      () => signatureOf(ACCOUNT.authToken, 'wss://elsewhere.example.com/carrier/v1/twilio/media'),
    ],
    ['no signature', () => null],
  ])('refuses a stream with %s: closed with 1008, nothing spoken or recorded', async (_what, signature) => {
    const callId = await answeredCall();
    const client = await TwilioMediaClient.connect(streamAddress, { signature: signature() });
    client.start({ callId, accountSid: ACCOUNT.accountSid });
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    expect(client.media()).toEqual([]);
    expect(await transcriptsOf(callId)).toEqual([]);
  });

  it('refuses a stream whose account is not the call organization’s, and one for an unknown call', async () => {
    const callId = await answeredCall();
    const other = await TwilioMediaClient.connect(streamAddress, { signature: signed() });
    other.start({ callId, accountSid: `AC${'2b'.repeat(16)}` });
    expect((await other.closed).code).toBe(1008);

    const unknown = await TwilioMediaClient.connect(streamAddress, { signature: signed() });
    unknown.start({ callId: 'no-such-call', accountSid: ACCOUNT.accountSid });
    expect((await unknown.closed).code).toBe(1008);
    expect([...other.media(), ...unknown.media()]).toEqual([]);
  });

  it('leaves the speech WebSocket of the same server as it was', async () => {
    const speech = await SpeechClient.connect(t.url, { token: org.token });
    expect((await speech.next((m) => m.type === 'connected')).type).toBe('connected');
    speech.close();
  });

  it('answers 404 to an upgrade of a path no socket route serves', async () => {
    await expect(
      TwilioMediaClient.connect(streamAddress.replace(TWILIO_MEDIA_PATH, '/carrier/v1/other'), { signature: signed() }),
    ).rejects.toThrow('HTTP 404');
  });
});

/** Polls `condition` until it holds (true) or 10 s pass (false). */
async function until(condition: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
