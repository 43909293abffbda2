/**
 * Twilio Media Streams benchmark: how soon the agent starts speaking in a call. A stand-in for Twilio
 * opens the media stream WebSocket of a running server (SQLite stores, the real speech engine), sends
 * `start` for an answered call, and measures the time from sending `start` to the first media frame
 * (admission: the call, the account, the signature, the agent; then synthesis of the greeting's
 * first audio, μ-law encoding and sending); then it sends `stop`. Streams run one at a time, then
 * several at once; p50/p95/max over every stream. Target: the first frame within 150 ms.
 * The stand-in runs in the server's process (its share of the event loop is small: it only times arrivals).
 *
 *   npx tsx bench/twilio-media.ts [--streams 50] [--concurrency 1,4,8] [--engine js|native|auto]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { CarrierReports } from '../application/calls/carrier-reports';
import { CommandHandler } from '../application/command-handler';
import { Lookups } from '../application/lookups';
import type { ProviderAccounts, TwilioAccount } from '../application/ports/provider-accounts';
import { twilioMediaSockets } from '../api/carrier/twilio-media-socket';
import { UnauthenticatedSockets } from '../api/http/connection-limits';
import { attachModuleSockets } from '../api/sockets/module-sockets';
import { callDecider, callStreamId } from '../domain/calls/call';
import { silentLogger } from '../infrastructure/logging/json-logger';
import { chooseEngine, createEspeakSpeechEngine } from '../infrastructure/speech';
import { mediaStreamUrl, TWILIO_MEDIA_PATH } from '../infrastructure/twilio/twiml';
import { agentsProjection } from '../projections/agents/agents';
import { customersProjection } from '../projections/customers/customers';
import { dispositionGroupsProjection } from '../projections/dispositions/disposition-groups';
import { dispositionsProjection } from '../projections/dispositions/dispositions';
import { organizationsProjection } from '../projections/organizations/organizations';
import { startTestService } from '../tests/support/test-service';
import { signatureOf, TwilioMediaClient } from '../tests/support/twilio-media-client';
import { percentile } from './support/stats';

const argument = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const STREAMS = Number(argument('streams') ?? 50);
const CONCURRENCY = (argument('concurrency') ?? '1,4,8').split(',').map(Number);
const ENGINE = (argument('engine') ?? 'auto') as 'js' | 'native' | 'auto';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT: TwilioAccount = { accountSid: `AC${'1a'.repeat(16)}`, authToken: 'bench-auth-token' };
const GREETING = 'Namaste, this is Priya calling from Sahyadri Finance about your loan account.';
const LINES = ['Your instalment of eight thousand five hundred rupees is due on the fifth of April.'];

async function main() {
  const choice = chooseEngine(ENGINE);
  const engine = createEspeakSpeechEngine({ logger: silentLogger, engine: choice.kind });
  const t = await startTestService({ store: 'sqlite' });
  await engine.warm();
  const org = await t.newOrganization();
  const agent = await t.request('POST', '/api/v1/agents', {
    token: org.token,
    body: { name: 'Priya', language: 'en', greeting: GREETING, lines: LINES },
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${agent.text}`);
  const agentId = agent.body.data.id as string;

  const reads = t.service.reads;
  const lookups = new Lookups({
    organizations: await reads.collection(organizationsProjection.collection),
    agents: await reads.collection(agentsProjection.collection),
    customers: await reads.collection(customersProjection.collection),
    dispositions: await reads.collection(dispositionsProjection.collection),
    groups: await reads.collection(dispositionGroupsProjection.collection),
  });
  const commands = new CommandHandler(t.service.events);
  const accounts: ProviderAccounts = {
    accountOf: async (organizationId) => (organizationId === org.id ? ACCOUNT : null) as never,
    byAccountId: async () => null,
    hasWhatsAppVerifyToken: async () => false,
  };
  const server = createServer();
  attachModuleSockets(
    server,
    twilioMediaSockets(
      {
        config: { publicUrl: PUBLIC_URL, mediaStreamStartTimeoutMs: t.service.config.mediaStreamStartTimeoutMs },
        engine,
        commands,
        lookups,
        logger: silentLogger,
        env: t.service.env,
      },
      { accounts, reports: new CarrierReports(commands) },
    ),
    silentLogger,
    { unauthenticated: new UnauthenticatedSockets(t.service.config.unauthenticatedSockets) },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${TWILIO_MEDIA_PATH}`;
  const signature = signatureOf(ACCOUNT.authToken, mediaStreamUrl(PUBLIC_URL));

  let calls = 0;
  const answeredCall = async () => {
    const callId = `bench-call-${++calls}`;
    const stream = callStreamId(callId);
    const at = new Date().toISOString();
    const context = { organizationId: org.id, actor: 'bench', requestId: callId };
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
        campaignId: '',
        campaignName: '',
        customerKeyField: 'loan_id',
        customerKey: '',
        customerName: '',
        to: '+918000000001',
        from: '+919800000001',
        agentId,
        dispositionId: 'none',
        language: 'en',
      },
      context,
    );
    await commands.handle(callDecider, stream, { type: 'RecordCallAnswered', at }, context);
    return callId;
  };

  /** One stream: connected and its call made beforehand; timed from `start` to the first media frame. */
  const firstFrameMs = async (callId: string, client: TwilioMediaClient) => {
    client.start({ callId, accountSid: ACCOUNT.accountSid });
    await client.until(() => client.firstMediaMs() !== undefined, 10_000);
    const ms = client.firstMediaMs()!;
    client.stop();
    await client.closed;
    return ms;
  };

  // A few streams first, not measured: the first of anything is slower (JIT, caches).
  for (let i = 0; i < 5; i++)
    await firstFrameMs(await answeredCall(), await TwilioMediaClient.connect(address, { signature }));

  console.log(
    `Twilio media streams: time from start to the first media frame (${choice.kind} engine, ${cpus().length} CPUs, ${STREAMS} streams each)`,
  );
  console.log('concurrent  p50 ms  p95 ms  max ms  within 150 ms');
  for (const concurrency of CONCURRENCY) {
    const times: number[] = [];
    while (times.length < STREAMS) {
      const batch = Math.min(concurrency, STREAMS - times.length);
      const ready = await Promise.all(
        Array.from({ length: batch }, async () => ({
          callId: await answeredCall(),
          client: await TwilioMediaClient.connect(address, { signature }),
        })),
      );
      times.push(...(await Promise.all(ready.map(({ callId, client }) => firstFrameMs(callId, client)))));
    }
    const within = times.filter((ms) => ms <= 150).length / times.length;
    console.log(
      [
        String(concurrency).padStart(10),
        percentile(times, 50).toFixed(1).padStart(7),
        percentile(times, 95).toFixed(1).padStart(7),
        Math.max(...times)
          .toFixed(1)
          .padStart(7),
        `${(within * 100).toFixed(0)}%`.padStart(14),
      ].join(' '),
    );
  }

  server.closeAllConnections();
  server.close();
  await t.stop();
  await engine.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
