/**
 * Calls handed to a carrier that have not ended yet. A provider whose calls live inside this process
 * (the built-in carrier) continues them from here after a restart.
 */
import type { Projection } from '../projection';
import type { CallEvent } from '../../domain/calls/call';
import type { RecordedEvent } from '../../domain/shared/recorded-event';

export type OpenCallDocument = { id: string; provider: string; dialedAt: string };

export const openCallsProjection: Projection<OpenCallDocument> = {
  name: 'open_calls',
  collection: {
    name: 'open_calls',
    fields: { provider: 'string', dialedAt: 'string' },
    indexes: [['provider', 'dialedAt']],
  },
  eventTypes: ['CallDialed', 'CallEnded'],
  documentIds: (event) => [(event.data as { callId: string }).callId],
  evolve(id, doc, recorded) {
    const event = recorded as RecordedEvent & CallEvent;
    if (event.type === 'CallDialed') return { id, provider: event.data.provider, dialedAt: event.data.at };
    if (event.type === 'CallEnded') return null;
    return doc;
  },
};
