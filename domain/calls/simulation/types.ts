/** The data of one simulated call: what the built-in carrier is asked to do and what happened. */
import type { LanguageCode } from '../../shared/languages';

export type OrganizationType = 'collection' | 'lead_generation';

/** What the customer wants, as the conversation reveals it. */
export type CustomerIntent =
  | 'promise_to_pay'
  | 'request_more_time'
  | 'already_paid'
  | 'dispute'
  | 'wrong_number'
  | 'callback_later'
  | 'interested'
  | 'not_interested';

export type Sentiment = 'positive' | 'neutral' | 'negative';

/** How ringing ended. `voicemail` means a machine answered, not the customer. */
export type RingOutcome = 'answered' | 'busy' | 'no_answer' | 'voicemail' | 'failed';

export type EndReason =
  /** The agent closed the conversation. */
  | 'completed'
  | 'customer_hung_up'
  | 'voicemail_left'
  | 'busy'
  | 'no_answer'
  /** Not a dialable number: never rings. */
  | 'invalid_number'
  /** The carrier could not reach the number (switched off, out of service). */
  | 'unreachable';

export type Speaker = 'BOT' | 'HUMAN';

/** One utterance; times in milliseconds from the moment the call was picked up. */
export type Turn = { speaker: Speaker; message: string; offsetMs: number; durationMs: number };

export type DispositionRef = { id: string; name: string };

export type CallAgent = {
  name: string;
  /** The language the agent's own greeting and lines are written in. */
  language?: LanguageCode;
  greeting?: string;
  lines?: string[];
};

export type CallSimulationInput = {
  seed: string;
  /** ISO 8601 time the call is placed. */
  at: string;
  organizationType: OrganizationType;
  customer: Record<string, unknown>;
  agent: CallAgent;
  dispositions: DispositionRef[];
  defaultLanguage?: LanguageCode;
  /** The customer called us: the agent picks up after a ring or two, and nothing else can happen to the ringing. */
  inbound?: boolean;
};

/** What the agent learned, as `extracted_data` of the log entry (snake_case like the API). */
export type ExtractedData = {
  intent: CustomerIntent | null;
  sentiment: Sentiment | null;
  language: LanguageCode;
  call_outcome: RingOutcome;
  /** `YYYY-MM-DD`, the day the customer said they would pay. */
  promised_payment_date?: string;
  promised_amount?: number;
  /** ISO 8601 UTC time the customer asked to be called back. */
  callback_time?: string;
  interested?: boolean;
};

export type SimulatedCall = {
  outcome: RingOutcome;
  ringSeconds: number;
  /** Seconds from pickup (by the customer or the voicemail) to hang-up; 0 when nothing picked up. */
  durationSeconds: number;
  endReason: EndReason;
  language: LanguageCode;
  /** The conversation; the voicemail message alone for voicemail; empty when nothing picked up. */
  turns: Turn[];
  intent: CustomerIntent | null;
  disposition: DispositionRef | null;
  /** One or two English sentences for auditors. */
  summary: string;
  extractedData: ExtractedData;
};
