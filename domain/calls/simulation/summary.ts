/**
 * The auditor's view of a call: an English summary whatever the call language, and the extracted data
 * stored with the log entry. Both come from the same facts the conversation was written from.
 */
import { assertNever } from '../../shared/decider';
import { indianDateOf } from '../../shared/calendar';
import { formatIndianNumber } from '../../shared/format';
import { sentimentOf } from './intents';
import type { Commitments } from './commitments';
import type { LanguageCode } from '../../shared/languages';
import type { CustomerIntent, EndReason, ExtractedData, OrganizationType, RingOutcome } from './types';

export type CallFacts = {
  organizationType: OrganizationType;
  outcome: RingOutcome;
  endReason: EndReason;
  ringSeconds: number;
  language: LanguageCode;
  intent: CustomerIntent | null;
  commitments: Commitments;
  loanId?: string;
};

const istHour = (utc: string): string => {
  const minutes = (new Date(utc).getUTCHours() * 60 + new Date(utc).getUTCMinutes() + 330) % (24 * 60);
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
};

function conversationSummary(facts: CallFacts, intent: CustomerIntent): string {
  const who = facts.organizationType === 'collection' ? 'Customer' : 'Lead';
  const { promisedDate, promisedAmount, callbackTime } = facts.commitments;
  const emi = promisedAmount === undefined ? 'the EMI' : `the EMI of ₹${formatIndianNumber(promisedAmount)}`;
  switch (intent) {
    case 'promise_to_pay':
      return `Customer agreed to pay ${emi} by ${promisedDate}.`;
    case 'request_more_time':
      return `Customer asked for more time and proposed to pay ${emi} by ${promisedDate}.`;
    case 'already_paid':
      return 'Customer said the EMI has already been paid; the payment needs to be verified.';
    case 'dispute':
      return `Customer disputed the amount due${facts.loanId ? ` on loan ${facts.loanId}` : ''}; a complaint was registered for review.`;
    case 'wrong_number':
      return `The person who answered said it was a wrong number; the ${who.toLowerCase()} was not reached.`;
    case 'callback_later':
      return callbackTime
        ? `${who} was busy and asked to be called back on ${indianDateOf(callbackTime)} around ${istHour(callbackTime)} IST.`
        : `${who} was busy and asked to be called back later.`;
    case 'interested':
      return 'Lead is interested and asked for more details; an advisor should follow up.';
    case 'not_interested':
      return 'Lead said they are not interested in a loan at the moment.';
    default:
      return assertNever(intent);
  }
}

function missedSummary(facts: CallFacts): string {
  switch (facts.endReason) {
    case 'busy':
      return 'The line was busy; the customer was not reached.';
    case 'no_answer':
      return `The phone rang for ${facts.ringSeconds} seconds without an answer.`;
    case 'voicemail_left':
      return 'The call went to voicemail and the agent left a message.';
    case 'invalid_number':
      return 'The call failed: the phone number is not valid.';
    case 'unreachable':
      return 'The call failed: the number could not be reached.';
    default:
      return 'The call ended without a conversation.';
  }
}

export function summarize(facts: CallFacts): string {
  if (facts.intent === null) return missedSummary(facts);
  const summary = conversationSummary(facts, facts.intent);
  return facts.endReason === 'customer_hung_up'
    ? `${summary} The customer hung up before the agent closed the call.`
    : summary;
}

export function extractedDataOf(facts: CallFacts): ExtractedData {
  const { intent, commitments } = facts;
  const interested =
    facts.organizationType === 'lead_generation' && (intent === 'interested' || intent === 'not_interested')
      ? { interested: intent === 'interested' }
      : {};
  return {
    intent,
    sentiment: intent === null ? null : sentimentOf[intent],
    language: facts.language,
    call_outcome: facts.outcome,
    ...(commitments.promisedDate !== undefined && { promised_payment_date: commitments.promisedDate }),
    ...(commitments.promisedAmount !== undefined && { promised_amount: commitments.promisedAmount }),
    ...(commitments.callbackTime !== undefined && { callback_time: commitments.callbackTime }),
    ...interested,
  };
}
