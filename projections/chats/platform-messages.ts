/**
 * Open chats as a real chat platform knows them: one document per chat message until it ends, with the
 * platform that carries it, the platform's id for it (WhatsApp's `wamid`) and the customer's number
 * (digits only, as platforms write it: the recipient of a message we sent, the sender of one that came
 * in). A platform's webhook finds here which of our messages a status is about, and the open chat a
 * customer's reply belongs to (the most recently active one with that customer). An ended chat takes
 * neither, so its document is removed.
 *
 * A subject's erasure (docs/privacy.md) leaves the open chats it names with no customer number (the
 * digits of `[erased]`), as a replay now builds them: a reply from the erased number matches none.
 */
import type { Projection } from '../projection';
import type { RecordedEvent } from '../../domain/shared/recorded-event';
import { chatEventTypes, latestActivity, type ChatEvent } from '../../domain/chats/chat';
import { digitsOf } from '../../domain/numbers/phone-number';
import { erasedText, erasureEventTypes, erasureOf, ownedBy } from '../privacy/erasure-masks';

export type PlatformMessageDocument = {
  id: string;
  organizationId: string;
  /** The platform's alias; empty until the message is handed to one. */
  provider: string;
  /** The platform's id of the message; empty until the platform reported it. */
  platformMsgId: string;
  /** The customer's number, digits only. */
  customer: string;
  lastActivityAt: string;
};

export const platformMessagesProjection: Projection<PlatformMessageDocument> = {
  name: 'platform_messages',
  collection: {
    name: 'platform_messages',
    fields: {
      organizationId: 'string',
      provider: 'string',
      platformMsgId: 'string',
      customer: 'string',
      lastActivityAt: 'string',
    },
    indexes: [['platformMsgId'], ['organizationId', 'customer', 'provider', 'lastActivityAt']],
  },
  eventTypes: [...chatEventTypes, ...erasureEventTypes],
  documentIds: (event) => {
    const erasure = erasureOf(event);
    if (erasure) return erasure.scope === 'subjects' ? erasure.data.chats : [];
    return [(event.data as { messageId: string }).messageId];
  },
  evolve(id, doc, recorded) {
    const erasure = erasureOf(recorded);
    if (erasure) return doc && ownedBy(doc, erasure) ? { ...doc, customer: digitsOf(erasedText()) } : doc;
    const event = recorded as RecordedEvent & ChatEvent;
    switch (event.type) {
      case 'ChatRequested':
        return {
          id,
          organizationId: event.data.organizationId,
          provider: '',
          platformMsgId: '',
          customer: digitsOf(event.data.to),
          lastActivityAt: latestActivity(null, event.data.at),
        };
      case 'ChatReceived':
        return {
          id,
          organizationId: event.data.organizationId,
          provider: event.data.provider,
          platformMsgId: '',
          customer: digitsOf(event.data.from),
          lastActivityAt: latestActivity(null, event.data.at),
        };
      case 'ChatEnded':
        return null;
      default: {
        if (doc === null) return null;
        const next = { ...doc, lastActivityAt: latestActivity(doc.lastActivityAt, event.data.at) };
        if (event.type === 'ChatDispatched') return { ...next, provider: event.data.provider };
        if (event.type === 'ChatAccepted') return { ...next, platformMsgId: event.data.platformMsgId };
        return next;
      }
    }
  },
};
