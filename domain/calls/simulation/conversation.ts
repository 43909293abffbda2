/**
 * The words of a call that someone (or a machine) picked up, filled from the customer record and
 * timed. Which words follow from the intent and commitments decided beforehand.
 */
import { indianDateOf } from '../../shared/calendar';
import { commitmentsFor, type Commitments } from './commitments';
import type { LanguageCode } from '../../shared/languages';
import { fillTemplate, type TemplateRecord } from '../../shared/placeholders';
import { phrasesFor, spokenDate } from './phrases';
import type { Random } from './random';
import { writeScript } from './script';
import { callSeconds, timeTurns } from './timing';
import type { CallSimulationInput, CustomerIntent, EndReason, Turn } from './types';

/** A non-blank string field of the record, or nothing. */
export const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** The language the agent's own greeting and lines are written in. */
export const agentLanguageOf = (input: CallSimulationInput): LanguageCode =>
  input.agent.language ?? input.defaultLanguage ?? 'en';

/** The year in India when the call is placed: dates in it are read without the year. */
const callYear = (input: CallSimulationInput): number => Number(indianDateOf(input.at).slice(0, 4));

/**
 * The agent's own greeting and lines are written in the agent's language; in a call held in another
 * language the built-in phrases of that language are spoken instead, so a conversation never mixes
 * languages.
 */
function agentScript(
  input: CallSimulationInput,
  language: LanguageCode,
): { greeting: string; lines: readonly string[] } {
  const book = phrasesFor(language);
  const own = agentLanguageOf(input) === language;
  const greeting = (own ? text(input.agent.greeting) : undefined) ?? book.greeting[input.organizationType];
  const ownLines = own ? (input.agent.lines ?? []).filter((line) => text(line) !== undefined) : [];
  if (ownLines.length > 0) return { greeting, lines: ownLines };
  if (input.organizationType === 'lead_generation') return { greeting, lines: [book.lines.lead] };
  const bounced = text(input.customer.payment_status)?.trim().toLowerCase() === 'bounced';
  return { greeting, lines: [bounced ? book.lines.bounced : book.lines.due] };
}

/** The record the agent's words are filled from: the customer, their full name, the agent, the promise. */
function templateContext(input: CallSimulationInput, commitments: Commitments): TemplateRecord {
  const fullName = [text(input.customer.first_name), text(input.customer.last_name)].filter(Boolean).join(' ');
  return {
    name: fullName,
    ...input.customer,
    agent_name: input.agent.name,
    ...(commitments.promisedDate !== undefined && { promised_date: commitments.promisedDate }),
    ...(commitments.promisedAmount !== undefined && { promised_amount: commitments.promisedAmount }),
  };
}

export type Talk = { turns: Turn[]; durationSeconds: number; endReason: EndReason; commitments: Commitments };

export function converse(
  random: Random,
  input: CallSimulationInput,
  language: LanguageCode,
  intent: CustomerIntent,
): Talk {
  const commitments = commitmentsFor(random, intent, input.at, input.customer);
  const { greeting, lines: agentLines } = agentScript(input, language);
  const script = writeScript(random, { book: phrasesFor(language), intent, greeting, agentLines });
  const context = templateContext(input, commitments);
  const formatDate = spokenDate(language, callYear(input));
  const spoken = script.lines.map(({ speaker, template }) => ({
    speaker,
    message: fillTemplate(template, context, { formatDate }).trim(),
  }));
  const turns = timeTurns(random, spoken, random.int(400, 1200));
  return {
    turns,
    durationSeconds: callSeconds(random, turns),
    endReason: script.customerHungUp ? 'customer_hung_up' : 'completed',
    commitments,
  };
}

/** A machine answers: its greeting and the beep take a few seconds, then the agent leaves a message. */
export function leaveVoicemail(random: Random, input: CallSimulationInput, language: LanguageCode): Turn[] {
  const formatDate = spokenDate(language, callYear(input));
  const message = fillTemplate(phrasesFor(language).voicemail[input.organizationType], templateContext(input, {}), {
    formatDate,
  }).trim();
  return timeTurns(random, [{ speaker: 'BOT', message }], random.int(5000, 9000));
}
