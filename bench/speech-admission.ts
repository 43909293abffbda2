/**
 * Speech admission on a busy organization: the time to admit one speech request (the
 * `StartSpeechRequest` command on the organization's stream: fold, decide, durable append) with a
 * cold cache, for an organization with 1,000,000 earlier speech requests (2,000,000 events) and for a
 * new one, on the embedded SQLite event store. With snapshots both fold at most 100 events.
 *
 *   npx tsx bench/speech-admission.ts [--requests 1000000] [--trials 50] [--full-fold]
 *
 * `--full-fold` also times folding the busy stream from its first event (what every cold admission
 * cost before snapshots). Last, the contention of replicas: three command handlers (each one replica's)
 * admit and finish requests of one organization together for a few seconds.
 */
import { join } from 'node:path';
import { CommandHandler } from '../application/command-handler';
import {
  organizationDecider,
  organizationStreamId,
  type OrganizationCommand,
} from '../domain/organizations/organization';
import { SqliteEventStore } from '../infrastructure/sqlite/sqlite-event-store';
import { tempDir } from '../tests/support/temp-dir';
import { percentile } from './support/stats';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('requests', 1_000_000);
const TRIALS = arg('trials', 50);
/** Requests in flight together while the history is written (one group commit each way). */
const IN_FLIGHT = 100;

const at = () => new Date().toISOString();
const ctx = (organizationId: string) => ({ organizationId, actor: 'bench', requestId: 'bench' });
const details = { voiceId: 'v', language: 'hi', sampleRate: 22050, speed: 1, channel: 'rest' as const };
const register = (organizationId: string): OrganizationCommand => ({
  type: 'RegisterOrganization',
  organizationId,
  name: organizationId,
  organizationType: 'collection',
  credits: 100 * (REQUESTS + TRIALS),
  concurrencyLimit: IN_FLIGHT,
  at: at(),
});
const start = (speechId: string): OrganizationCommand => ({
  type: 'StartSpeechRequest',
  speechId,
  requestId: speechId,
  characters: 50,
  leaseUntil: new Date(Date.now() + 600_000).toISOString(),
  at: at(),
  ...details,
});
const finish = (speechId: string): OrganizationCommand => ({
  type: 'FinishSpeechRequest',
  speechId,
  requestId: speechId,
  charactersSpoken: 50,
  audioDurationMs: 3000,
  outcome: 'completed',
  at: at(),
});

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`;
};

/** Writes the busy organization's history through the command handler, as the service would. */
async function writeHistory(store: SqliteEventStore, organizationId: string): Promise<void> {
  const handler = new CommandHandler(store);
  const stream = organizationStreamId(organizationId);
  await handler.handle(organizationDecider, stream, register(organizationId), ctx(organizationId));
  const began = Date.now();
  for (let done = 0; done < REQUESTS; done += IN_FLIGHT) {
    const ids = Array.from({ length: Math.min(IN_FLIGHT, REQUESTS - done) }, (_, i) => `h${done + i}`);
    await Promise.all(ids.map((id) => handler.handle(organizationDecider, stream, start(id), ctx(organizationId))));
    await Promise.all(ids.map((id) => handler.handle(organizationDecider, stream, finish(id), ctx(organizationId))));
    if ((done / IN_FLIGHT) % 1000 === 999)
      process.stdout.write(
        `  history: ${done + IN_FLIGHT} requests in ${((Date.now() - began) / 1000).toFixed(0)} s\n`,
      );
  }
}

/** Admission times with a cold cache: each trial on a command handler that has seen nothing. */
async function coldAdmissions(store: SqliteEventStore, organizationId: string): Promise<number[]> {
  const stream = organizationStreamId(organizationId);
  const times: number[] = [];
  for (let i = 0; i < TRIALS; i++) {
    const handler = new CommandHandler(store);
    const id = `${organizationId}-t${i}`;
    const began = performance.now();
    await handler.handle(organizationDecider, stream, start(id), ctx(organizationId));
    times.push(performance.now() - began);
    await handler.handle(organizationDecider, stream, finish(id), ctx(organizationId));
  }
  return times;
}

/**
 * `replicas` command handlers on one store, each with `perReplica` clients that admit and finish
 * requests of one organization for `seconds`: admissions per second and their latency.
 */
async function contention(store: SqliteEventStore, replicas: number, perReplica: number, seconds: number) {
  const organizationId = `shared-${Date.now()}`;
  const stream = organizationStreamId(organizationId);
  const handlers = Array.from({ length: replicas }, () => new CommandHandler(store));
  await handlers[0]!.handle(
    organizationDecider,
    stream,
    { ...register(organizationId), credits: 1_000_000_000 },
    ctx(organizationId),
  );
  const times: number[] = [];
  const until = Date.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    handlers.flatMap((handler) =>
      Array.from({ length: perReplica }, async () => {
        while (Date.now() < until) {
          const id = `c${n++}`;
          const began = performance.now();
          await handler.handle(organizationDecider, stream, start(id), ctx(organizationId));
          times.push(performance.now() - began);
          await handler.handle(organizationDecider, stream, finish(id), ctx(organizationId));
        }
      }),
    ),
  );
  console.log(
    `contention, ${replicas} replicas x ${perReplica} clients on one organization: ${Math.round(times.length / seconds)} admissions/s, ${summary(times)}`,
  );
}

async function main(): Promise<void> {
  const dir = tempDir('bench-admission-');
  const store = new SqliteEventStore(join(dir.path, 'events.db'));
  try {
    console.log(`writing ${REQUESTS.toLocaleString('en')} speech requests of one organization...`);
    const began = Date.now();
    await writeHistory(store, 'busy');
    console.log(
      `history written in ${((Date.now() - began) / 1000).toFixed(1)} s (${(await store.headPosition()) + 1} events with snapshots)`,
    );
    const fresh = `new-${Date.now()}`;
    await new CommandHandler(store).handle(
      organizationDecider,
      organizationStreamId(fresh),
      register(fresh),
      ctx(fresh),
    );

    // Alternated, so both see the same machine.
    const busy: number[] = [];
    const young: number[] = [];
    for (let round = 0; round < 2; round++) {
      busy.push(...(await coldAdmissions(store, 'busy')));
      young.push(...(await coldAdmissions(store, fresh)));
    }
    console.log(
      `cold admission, organization with ${REQUESTS.toLocaleString('en')} earlier requests: ${summary(busy)}`,
    );
    console.log(`cold admission, new organization: ${summary(young)}`);
    const median = (ms: number[]) =>
      percentile(
        [...ms].sort((a, b) => a - b),
        50,
      );
    console.log(`difference of medians: ${(median(busy) - median(young)).toFixed(2)} ms`);

    if (process.argv.includes('--full-fold')) {
      const foldBegan = performance.now();
      const events = await store.readStream(organizationStreamId('busy'));
      events.reduce(
        (state, e) => organizationDecider.evolve(state, { type: e.type, data: e.data } as never),
        organizationDecider.initialState(),
      );
      console.log(
        `folding all ${events.length.toLocaleString('en')} events without a snapshot: ${(performance.now() - foldBegan).toFixed(0)} ms`,
      );
    }
    await contention(store, 3, Math.floor(IN_FLIGHT / 3 / 2), 5);
  } finally {
    await store.close();
    dir.remove();
  }
}

void main();
