/**
 * Read model of campaign customers, one document per customer. The fields later queries filter on
 * (chat and call initiation: ids, payment status, language) are lifted out of the record and indexed;
 * the whole record stays under `data`, so custom fields can still be matched.
 *
 * An erased customer (`PersonalDataErased`) keeps its clear fields and reads `[erased]` in every other
 * one, the number included, as a replay of its events now builds it: no lookup by that number finds it.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { customerEventTypes, type CustomerEvent } from '../../domain/customers/customer';
import { customerDocumentId, languageKey } from '../../domain/customers/keys';
import { mergeRecord, type CustomerRecord } from '../../domain/customers/record';
import { erasedRecord, erasureEventTypes, erasureOf, ownedBy } from '../privacy/erasure-masks';

export type CustomerDocument = {
  id: string;
  organizationId: string;
  campaignId: string;
  /** The `loan_id` or `lead_id`. */
  customerId: string;
  payment_status: string | null;
  /** The language code the customer's word names (`Hindi` gives `hi`), the word itself when it names none, null when absent. */
  language: string | null;
  phone_number: string;
  data: CustomerRecord;
  createdAt: string;
  /** Order of adding: the global position of the add (one bulk request adds many at the same instant). */
  addedSeq: number;
  updatedAt: string;
};

type Event = RecordedEvent & CustomerEvent;

function indexed(record: CustomerRecord): Pick<CustomerDocument, 'payment_status' | 'language' | 'phone_number'> {
  return {
    payment_status: typeof record.payment_status === 'string' ? record.payment_status : null,
    language: languageKey(record.language),
    phone_number: String(record.phone_number ?? ''),
  };
}

export const customersProjection: Projection<CustomerDocument> = {
  name: 'customers',
  collection: {
    name: 'customers',
    fields: {
      organizationId: 'string',
      campaignId: 'string',
      customerId: 'string',
      payment_status: 'string',
      language: 'string',
      phone_number: 'string',
      createdAt: 'string',
      addedSeq: 'number',
    },
    // Queries select by campaign first (a campaign holds at most some hundred thousand customers), or
    // look a number up across the organization; each index slows every insert, so there are two.
    indexes: [
      ['campaignId', 'addedSeq'],
      ['organizationId', 'phone_number'],
    ],
  },
  eventTypes: [...customerEventTypes, ...erasureEventTypes],
  documentIds: (event) => {
    const erasure = erasureOf(event);
    if (erasure)
      return erasure.scope === 'subjects'
        ? erasure.data.customers.map((c) => customerDocumentId(c.campaignId, c.customerKey))
        : [];
    const data = event.data as { campaignId: string; customerId: string };
    return [customerDocumentId(data.campaignId, data.customerId)];
  },
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) {
      if (!doc || !ownedBy(doc, erasure)) return doc;
      const data = erasedRecord(doc.data);
      return { ...doc, ...indexed(data), data };
    }
    const event = recorded as Event;
    switch (event.type) {
      case 'CustomerAdded': {
        const { campaignId, customerId, organizationId, record, at } = event.data;
        return {
          id,
          organizationId,
          campaignId,
          customerId,
          ...indexed(record),
          data: record,
          createdAt: at,
          updatedAt: at,
          addedSeq: recorded.position,
        };
      }
      case 'CustomerUpdated': {
        if (!doc) return doc;
        const data = mergeRecord(doc.data, event.data.changes);
        return { ...doc, ...indexed(data), data, updatedAt: event.data.at };
      }
      default:
        return doc;
    }
  },
};
