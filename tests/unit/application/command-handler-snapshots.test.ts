/**
 * A stream that grows without end (an organization's speech admissions) is folded from its last
 * snapshot: a command on it, cold, costs the same after a long history as after a short one.
 */
import { CommandHandler } from '../../../application/command-handler';
import { readSnapshot, snapshotStreamId } from '../../../application/snapshots';
import {
  organizationDecider,
  organizationStreamId,
  type OrganizationCommand,
  type OrganizationState,
} from '../../../domain/organizations/organization';
import { MemoryEventStore } from '../../../infrastructure/memory/memory-event-store';
import { RecordingEventStore } from '../../support/recording-event-store';

const at = '2026-03-01T10:00:00.000Z';
const ctx = { organizationId: 'o1', actor: 'tester', requestId: 'r1' };
const stream = organizationStreamId('o1');
const details = { voiceId: 'v', language: 'en', sampleRate: 24000, speed: 1, channel: 'rest' as const };
const EVERY = organizationDecider.snapshot!.every;

const register: OrganizationCommand = {
  type: 'RegisterOrganization',
  organizationId: 'o1',
  name: 'Acme',
  organizationType: 'collection',
  credits: 1_000_000,
  concurrencyLimit: 3,
  at,
};
const start = (speechId: string): OrganizationCommand => ({
  type: 'StartSpeechRequest',
  speechId,
  requestId: speechId,
  characters: 10,
  leaseUntil: '2026-03-01T11:00:00.000Z',
  at,
  ...details,
});
const finish = (speechId: string): OrganizationCommand => ({
  type: 'FinishSpeechRequest',
  speechId,
  requestId: speechId,
  charactersSpoken: 7,
  audioDurationMs: 500,
  outcome: 'completed',
  at,
});

/** Registers the organization and runs `requests` speech requests through one handler. */
async function history(store: MemoryEventStore, requests: number): Promise<void> {
  const handler = new CommandHandler(store);
  await handler.handle(organizationDecider, stream, register, ctx);
  for (let i = 0; i < requests; i++) {
    await handler.handle(organizationDecider, stream, start(`s${i}`), ctx);
    await handler.handle(organizationDecider, stream, finish(`s${i}`), ctx);
  }
  await new Promise((resolve) => setImmediate(resolve)); // the last snapshot is written in the background
}

describe('command handler: snapshots', () => {
  it('keeps a snapshot every so many events, each with the state folded up to its revision', async () => {
    const store = new MemoryEventStore();
    await history(store, 250); // 501 events
    const snapshots = await store.readStream(snapshotStreamId(stream));
    expect(snapshots.map((s) => (s.data as { revision: number }).revision)).toEqual([99, 199, 299, 399, 499]); // after each 100 events
    expect(snapshots.every((s) => s.metadata.organizationId === null)).toBe(true);
    const last = await readSnapshot(store, stream, organizationDecider.snapshot!.version);
    const folded = (await store.readStream(stream, { maxCount: 500 })).reduce(
      (state, e) => organizationDecider.evolve(state, { type: e.type, data: e.data } as never),
      organizationDecider.initialState(),
    );
    expect(last).toEqual({ revision: 499, state: JSON.parse(JSON.stringify(folded)) });
  });

  it('a cold command reads the last snapshot and at most that many events, and decides on the whole history', async () => {
    const memory = new MemoryEventStore();
    await history(memory, 1000);
    const store = new RecordingEventStore(memory);
    const cold = new CommandHandler(store);
    // Two requests still running: the concurrency limit (3) holds a third, not a fourth.
    await new CommandHandler(memory).handle(organizationDecider, stream, start('open-1'), ctx);
    await new CommandHandler(memory).handle(organizationDecider, stream, start('open-2'), ctx);
    await cold.handle(organizationDecider, stream, start('third'), ctx);
    expect(store.eventsRead.get(stream)).toBeLessThanOrEqual(EVERY + 3);
    await expect(cold.handle(organizationDecider, stream, start('fourth'), ctx)).rejects.toMatchObject({
      details: { code: 'concurrency_limit_exceeded' },
    });
    // The balance is charged by every earlier request: 1,000 requests of 7 characters.
    const { state } = await new CommandHandler(memory).load(organizationDecider, stream);
    expect((state as Extract<OrganizationState, { status: 'registered' }>).credits).toBe(1_000_000 - 7000);
  });

  it('passes over a snapshot of another shape version and folds the whole stream', async () => {
    const memory = new MemoryEventStore();
    await history(memory, 120);
    const store = new RecordingEventStore(memory);
    const reshaped = { ...organizationDecider, snapshot: { every: EVERY, version: 2 } };
    const { revision } = await new CommandHandler(store).load(reshaped, stream);
    expect(revision).toBe(240);
    expect(store.eventsRead.get(stream)).toBe(241);
  });
});
