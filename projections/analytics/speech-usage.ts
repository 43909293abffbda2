/**
 * Speech usage (analytics): one document per speech request of an organization, from its admission
 * (`SpeechRequestStarted`: when, which voice and language, the characters asked for) and its end
 * (`SpeechRequestFinished`: the characters spoken and the audio made). The end names neither voice nor
 * language, so the request is the unit the figures are summed over: per day, voice or language, and
 * for any time range, counted by its start (docs/analytics.md).
 *
 * Only the organization streams hold usage: their snapshot streams (`snapshot-organization-*`) repeat
 * folded state, never a request, and are passed over by name as well as by event type.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { organizationStreamId, type OrganizationEvent } from '../../domain/organizations/organization';

export type SpeechUsageDocument = {
  id: string;
  organizationId: string;
  start_time: string;
  date: string;
  voice_id: string;
  language: string;
  channel: 'rest' | 'websocket';
  characters_requested: number;
  /** What was spoken and made; zero until the request finished. */
  characters: number;
  audio_ms: number;
  finished: boolean;
};

type SpeechEvent = Extract<OrganizationEvent, { type: 'SpeechRequestStarted' | 'SpeechRequestFinished' }>;

const STREAM_PREFIX = organizationStreamId('');

/** The organization whose own stream recorded the event; null for any other stream (snapshots). */
const organizationOf = (event: RecordedEvent): string | null =>
  event.streamId.startsWith(STREAM_PREFIX) ? event.streamId.slice(STREAM_PREFIX.length) : null;

export const speechUsageId = (organizationId: string, speechId: string) => `${organizationId}:${speechId}`;

export const speechUsageProjection: Projection<SpeechUsageDocument> = {
  name: 'analytics_speech_usage',
  collection: {
    name: 'analytics_speech_usage',
    fields: { organizationId: 'string', start_time: 'string' },
    indexes: [['organizationId', 'start_time']],
  },
  eventTypes: ['SpeechRequestStarted', 'SpeechRequestFinished'],
  documentIds: (event) => {
    const organizationId = organizationOf(event);
    return organizationId ? [speechUsageId(organizationId, (event.data as { speechId: string }).speechId)] : [];
  },
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & SpeechEvent;
    const organizationId = organizationOf(recorded);
    if (!organizationId) return doc;
    switch (event.type) {
      case 'SpeechRequestStarted': {
        const d = event.data;
        return {
          id,
          organizationId,
          start_time: d.at,
          date: d.at.slice(0, 10),
          voice_id: d.voiceId,
          language: d.language,
          channel: d.channel,
          characters_requested: d.characters,
          characters: 0,
          audio_ms: 0,
          finished: false,
        };
      }
      case 'SpeechRequestFinished': {
        const d = event.data;
        return doc && { ...doc, characters: d.charactersSpoken, audio_ms: d.audioDurationMs, finished: true };
      }
      default:
        return doc;
    }
  },
};
