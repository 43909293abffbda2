/**
 * EventStoreDB's idempotence, which the event store port promises of every adapter: when every event id
 * of an append is already stored, in this stream and in this order, the append is a replay and answers
 * as the original did. A partial overlap is a conflict. Port-level logic, like `assertExpectedRevision`:
 * each adapter passes its own lookup of a stored event by id.
 */
import { WrongExpectedRevisionError, type AppendResult, type RecordedEvent } from './ports/event-store';

export function idempotentReplay(
  streamId: string,
  events: readonly { id: string }[],
  lookup: (id: string) => Pick<RecordedEvent, 'streamId' | 'revision' | 'position'> | undefined,
): AppendResult | null {
  if (events.length === 0) return null;
  const found = events.map((e) => lookup(e.id));
  if (found.every((f) => f === undefined)) return null;
  const first = found[0];
  const consecutive =
    first !== undefined &&
    found.every((f, i) => f !== undefined && f.streamId === streamId && f.revision === first.revision + i);
  if (!consecutive) throw new WrongExpectedRevisionError(streamId, 'any', first?.revision ?? -1);
  const last = found[found.length - 1]!;
  return { nextExpectedRevision: last.revision, position: last.position };
}
