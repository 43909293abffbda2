import { WrongExpectedRevisionError, type ExpectedRevision } from './ports/event-store';

/** Throws when a stream whose last revision is `current` (-1: no stream) does not meet `expected`. */
export function assertExpectedRevision(streamId: string, expected: ExpectedRevision, current: number): void {
  const actual = current < 0 ? 'no_stream' : current;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current < 0) ||
    (expected === 'stream_exists' && current >= 0) ||
    (typeof expected === 'number' && expected === current);
  if (!ok) throw new WrongExpectedRevisionError(streamId, expected, actual);
}
