import type { RecordedEvent } from '../../../application/ports/event-store';
import {
  speechUsageProjection as projection,
  type SpeechUsageDocument,
} from '../../../projections/analytics/speech-usage';
import { recordedEvent } from '../../support/events';

const started = (speechId: string, at: string) => ({
  type: 'SpeechRequestStarted',
  data: {
    speechId,
    requestId: `r-${speechId}`,
    characters: 40,
    leaseUntil: at,
    at,
    voiceId: 'v1',
    language: 'hi',
    sampleRate: 16000,
    speed: 1,
    channel: 'rest',
  },
});
const finished = (speechId: string, at: string) => ({
  type: 'SpeechRequestFinished',
  data: {
    speechId,
    requestId: `r-${speechId}`,
    charactersSpoken: 38,
    charged: 38,
    balance: 100,
    audioDurationMs: 2417,
    outcome: 'completed',
    at,
  },
});

/** Applies each event to the documents it names, as the runner does. */
function apply(events: RecordedEvent[], docs = new Map<string, SpeechUsageDocument | null>()) {
  for (const event of events)
    for (const id of projection.documentIds(event)) docs.set(id, projection.evolve(id, docs.get(id) ?? null, event));
  return docs;
}

describe('speech usage projection', () => {
  const stream = { streamId: 'organization-o1' };
  const events = [
    recordedEvent(started('s1', '2026-03-01T23:59:59.000Z'), 1, stream),
    recordedEvent(finished('s1', '2026-03-02T00:00:02.000Z'), 2, stream),
  ];

  it('records a request by its start, with what was spoken once it finished', () => {
    expect([...apply(events).values()]).toEqual([
      {
        id: 'o1:s1',
        organizationId: 'o1',
        start_time: '2026-03-01T23:59:59.000Z',
        date: '2026-03-01',
        voice_id: 'v1',
        language: 'hi',
        channel: 'rest',
        characters_requested: 40,
        characters: 38,
        audio_ms: 2417,
        finished: true,
      },
    ]);
  });

  it('shows a request not finished yet with nothing spoken', () => {
    expect(apply(events.slice(0, 1)).get('o1:s1')).toMatchObject({ characters: 0, audio_ms: 0, finished: false });
  });

  it('changes nothing when an event is applied again', () => {
    const once = apply(events);
    const twice = apply(events, new Map(once));
    expect(twice).toEqual(once);
    // A start replayed after the finish would reset it: the runner's position guard keeps it out, and
    // the projection names the same single document, so the guard covers it.
    expect(projection.documentIds(events[0]!)).toEqual(projection.documentIds(events[1]!));
  });

  it('ignores snapshot streams of the organization and other streams', () => {
    for (const streamId of ['snapshot-organization-o1', 'call-k1'])
      expect(projection.documentIds(recordedEvent(started('s2', '2026-03-01T10:00:00.000Z'), 3, { streamId }))).toEqual(
        [],
      );
  });

  it('keeps organizations apart, each under its own document', () => {
    const other = recordedEvent(started('s1', '2026-03-01T10:00:00.000Z'), 4, { streamId: 'organization-o2' });
    expect([...apply([...events, other]).keys()]).toEqual(['o1:s1', 'o2:s1']);
  });
});
