/**
 * Snapshots of a stream's folded state, for streams that grow without end (decider `snapshot`): kept
 * in a stream of their own beside it, `snapshot-<stream>`, whose last event is read first, so a cold
 * fold reads one snapshot and at most `every` events, however long the history. A snapshot is derived
 * data, not a decision: it names no organization (audit feeds leave it out), losing one only costs a
 * longer fold, and one written late or by two replicas at once is as good as any other (each says
 * the revision it folded up to).
 */
import type { EventStore } from './ports/event-store';
import { timeOrderedId } from './time-ordered-id';

export const snapshotStreamId = (streamId: string) => `snapshot-${streamId}`;
export const SNAPSHOT_EVENT = 'StateSnapshotted';

export type SnapshotData = { stream: string; revision: number; version: number; state: unknown };

/** The newest snapshot of the stream in the given shape version, or null. */
export async function readSnapshot(
  store: EventStore,
  streamId: string,
  version: number,
): Promise<{ state: unknown; revision: number } | null> {
  const [last] = await store.readStream(snapshotStreamId(streamId), { direction: 'backwards', maxCount: 1 });
  const data = last?.data as SnapshotData | undefined;
  return data && data.version === version ? { state: data.state, revision: data.revision } : null;
}

export async function writeSnapshot(
  store: EventStore,
  streamId: string,
  snapshot: { state: unknown; revision: number; version: number },
  at: Date,
): Promise<void> {
  const data: SnapshotData = { stream: streamId, ...snapshot };
  await store.appendToStream(snapshotStreamId(streamId), [
    {
      id: timeOrderedId(),
      type: SNAPSHOT_EVENT,
      data,
      metadata: {
        organizationId: null,
        actor: 'system',
        requestId: 'snapshot',
        correlationId: 'snapshot',
        causationId: null,
        occurredAt: at.toISOString(),
        schemaVersion: 1,
      },
    },
  ]);
}
