/**
 * The EventStoreDB adapter's appends through transient failures, with the errors the client really
 * throws (converted from gRPC statuses by the client's own conversion). The client's append is
 * replaced on the client object only to make it fail on cue: there is no server here. Against a real
 * cluster this is the testcontainers suite's part.
 */
import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { EventStoreDbEventStore } from '../../../infrastructure/eventstoredb/eventstoredb-event-store';
import { anEvent } from '../../support/events';
import { freePort } from '../../support/server-process';
import { kurrentError, status } from '../../support/kurrent-errors';

const unavailable = () => kurrentError(status.UNAVAILABLE);
const notLeader = () =>
  kurrentError(status.NOT_FOUND, {
    exception: 'not-leader',
    'leader-endpoint-host': 'n2',
    'leader-endpoint-port': '2113',
  });

type Call = { stream: string; ids: string[]; state: unknown };

async function adapterAnswering(answers: (() => unknown)[], retryAppendsForMs = 5_000) {
  const client = KurrentDBClient.connectionString(`kurrentdb://127.0.0.1:${await freePort()}?tls=false`);
  const calls: Call[] = [];
  Object.assign(client, {
    appendToStream: async (stream: string, events: { id: string }[], options: { streamState: unknown }) => {
      calls.push({ stream, ids: events.map((e) => e.id), state: options.streamState });
      const answer = answers[Math.min(calls.length, answers.length) - 1]!();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { store: new EventStoreDbEventStore(client, { retryAppendsForMs }), calls };
}

const written = { success: true, nextExpectedRevision: 0n, position: { commit: 7n, prepare: 7n } };

describe('EventStoreDB adapter: appends through transient failures', () => {
  it('tries again with the same event ids and expected revision until the cluster has a leader again', async () => {
    const { store, calls } = await adapterAnswering([unavailable, notLeader, () => written]);
    try {
      const event = anEvent('CallQueued', { callId: 'c1' });
      expect(await store.appendToStream('call-c1', [event], { expectedRevision: 'no_stream' })).toEqual({
        nextExpectedRevision: 0,
        position: 7,
      });
      expect(calls).toHaveLength(3);
      expect(new Set(calls.map((c) => JSON.stringify([c.stream, c.ids, c.state])))).toEqual(
        new Set([JSON.stringify(['call-c1', [event.id], 'no_stream'])]),
      );
    } finally {
      await store.close();
    }
  });

  it('gives up after its window, with the last error', async () => {
    const { store, calls } = await adapterAnswering([unavailable], 400);
    try {
      await expect(store.appendToStream('call-c2', [anEvent('CallQueued', { callId: 'c2' })])).rejects.toMatchObject({
        type: 'unavailable',
      });
      expect(calls.length).toBeGreaterThan(1);
    } finally {
      await store.close();
    }
  });

  it('does not try again what will not pass (access denied), and refuses an unacknowledged append', async () => {
    const denied = await adapterAnswering([
      () => kurrentError(status.PERMISSION_DENIED, { exception: 'access-denied' }),
    ]);
    try {
      await expect(denied.store.appendToStream('s', [anEvent()])).rejects.toMatchObject({ type: 'access-denied' });
      expect(denied.calls).toHaveLength(1);
    } finally {
      await denied.store.close();
    }
    const refused = await adapterAnswering([() => ({ ...written, success: false })]);
    try {
      await expect(refused.store.appendToStream('s', [anEvent()])).rejects.toThrow('not acknowledged');
    } finally {
      await refused.store.close();
    }
  });
});

describe('EventStoreDB adapter: reads that decide', () => {
  it('reads streams (commands, read-backs) from the leader', async () => {
    const client = KurrentDBClient.connectionString(`kurrentdb://127.0.0.1:${await freePort()}?tls=false`);
    const asked: unknown[] = [];
    Object.assign(client, {
      readStream: (_stream: string, options: unknown) => {
        asked.push(options);
        return (async function* () {})();
      },
    });
    const store = new EventStoreDbEventStore(client);
    try {
      expect(await store.readStream('call-c1')).toEqual([]);
      expect(asked).toEqual([expect.objectContaining({ requiresLeader: true })]);
    } finally {
      await store.close();
    }
  });
});
