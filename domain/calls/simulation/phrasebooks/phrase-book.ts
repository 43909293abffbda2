/** The building blocks of a simulated call in one language (see ../phrases.ts). */
import type { CustomerIntent, OrganizationType } from '../types';

export type PhraseBook = {
  /** Month names, January first, for dates read aloud. */
  months: readonly string[];
  /** The agent's opening when the agent supplies none. */
  greeting: Readonly<Record<OrganizationType, string>>;
  /** The agent's ask after the greeting: a bounced instalment, a pending one, or a lead's offer. */
  lines: Readonly<{ bounced: string; due: string; lead: string }>;
  /** The customer answering the greeting. */
  acknowledgements: readonly string[];
  /** The customer between two lines of a longer agent script. */
  fillers: readonly string[];
  /** The customer's answer that shows the intent. */
  replies: Readonly<Record<CustomerIntent, readonly string[]>>;
  /** The agent's last words for each outcome. */
  closings: Readonly<Record<CustomerIntent, string>>;
  /** The customer's goodbye after the closing. */
  farewells: readonly string[];
  voicemail: Readonly<Record<OrganizationType, string>>;
};
