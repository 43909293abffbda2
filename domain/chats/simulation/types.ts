/** The data of one simulated chat: what the built-in chat platform is asked to send and what happens. */
import type { LanguageCode } from '../../shared/languages';
import type { CustomerIntent, DispositionRef, OrganizationType } from '../../calls/simulation/types';
import type { ConversationRole, DeliveryError } from '../chat';

export type ChatSimulationInput = {
  seed: string;
  /** ISO 8601 time the platform took the message. */
  at: string;
  organizationType: OrganizationType;
  to: string;
  customer: Readonly<Record<string, unknown>>;
  templateLanguage: LanguageCode;
  /** With conversation settings the agent answers the customer and the chat gets a disposition. */
  conversation: { agent: { name: string; language?: LanguageCode }; dispositions: readonly DispositionRef[] } | null;
  /** The customer wrote first: their message is already in; the agent reads it and answers. */
  inbound?: boolean;
};

/** What became of the message. */
export type ChatOutcome = 'failed' | 'undelivered' | 'unread' | 'read' | 'replied';

/** One thing the platform reports, `afterSeconds` after it took the message (non-decreasing). */
export type ChatStep =
  | { afterSeconds: number; kind: 'status'; status: 'Sent' | 'Delivered' | 'Read' }
  | { afterSeconds: number; kind: 'status'; status: 'Failed'; errors: DeliveryError[] }
  | { afterSeconds: number; kind: 'message'; entryId: string; role: ConversationRole; content: string }
  | { afterSeconds: number; kind: 'closed'; reason: string; disposition: DispositionRef | null; summary: string };

export type SimulatedChat = {
  platformMsgId: string;
  outcome: ChatOutcome;
  /** The language the customer and the agent write in. */
  language: LanguageCode;
  intent: CustomerIntent | null;
  steps: ChatStep[];
};
