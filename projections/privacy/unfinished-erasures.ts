/**
 * The erasures requested and not completed yet (docs/privacy.md, "Erasure"): a document per
 * `PersonalDataErasureRequested` until its `PersonalDataErasureCompleted`. The service finishes these at start
 * and before an organization's next erasure, and reports itself not ready while any is left.
 */
import type { PersonalDataErasureCompleted, PersonalDataErasureRequested } from '../../domain/privacy/erasure';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { Projection } from '../projection';

export type UnfinishedErasureDocument = {
  /** The erasure's id. */
  id: string;
  organizationId: string;
  /** What its steps act on: the keys of these subjects, these recordings. */
  subjectIds: string[];
  recordingIds: string[];
};

type Event = RecordedEvent & (PersonalDataErasureRequested | PersonalDataErasureCompleted);

export const unfinishedErasuresProjection: Projection<UnfinishedErasureDocument> = {
  name: 'privacy_unfinished_erasures',
  collection: { name: 'privacy_unfinished_erasures', fields: { organizationId: 'string' } },
  eventTypes: ['PersonalDataErasureRequested', 'PersonalDataErasureCompleted'],
  documentIds: (event) => [(event as Event).data.erasureId],
  evolve(id, _doc, recorded) {
    const event = recorded as Event;
    if (event.type === 'PersonalDataErasureCompleted') return null;
    const { organizationId, subjectIds, recordingIds } = event.data;
    return { id, organizationId, subjectIds, recordingIds };
  },
};
