/**
 * Each organization's retention of conversation content (docs/privacy.md, "Retention"): one document
 * per organization that keeps content for a number of days; none for one that keeps it for ever (the
 * default). The retention routes answer from it and the retention sweep walks it.
 */
import type { RetentionSet } from '../../domain/privacy/erasure';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import type { Projection } from '../projection';

export type RetentionSettingDocument = {
  /** The organization's id. */
  id: string;
  organizationId: string;
  days: number;
  /** When it was set. */
  setAt: string;
};

type Event = RecordedEvent & RetentionSet;

export const retentionSettingsProjection: Projection<RetentionSettingDocument> = {
  name: 'privacy_retention',
  collection: { name: 'privacy_retention', fields: { organizationId: 'string' } },
  eventTypes: ['RetentionSet'],
  documentIds: (event) => [(event as Event).data.organizationId],
  evolve(id, _doc, recorded) {
    const { days, at } = (recorded as Event).data;
    return days === null ? null : { id, organizationId: id, days, setAt: at };
  },
};
