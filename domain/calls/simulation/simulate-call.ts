/**
 * The built-in carrier's call, as data: ringing, then (when someone answers) a scripted conversation
 * in the customer's language, a disposition, an English summary and the extracted data. Pure and
 * deterministic for a seed, so a replayed or retried call is the same call. Separate random streams
 * for ringing, talk and disposition keep one from shifting another when any of them changes.
 */
import { instantOf } from '../../shared/calendar';
import type { Commitments } from './commitments';
import { agentLanguageOf, converse, leaveVoicemail, text } from './conversation';
import { chooseDisposition, type DispositionTopic } from './dispositions';
import { chooseIntent } from './intents';
import { languageFromCustomer, type LanguageCode } from '../../shared/languages';
import { seededRandom } from './random';
import { answerInbound, ring, type Ring } from './ringing';
import { extractedDataOf, summarize, type CallFacts } from './summary';
import { callSeconds } from './timing';
import type { CallSimulationInput, EndReason, SimulatedCall } from './types';

export type * from './types';
export type { LanguageCode } from '../../shared/languages';

/** The customer's language word if it names one, else the agent's language, else the default. */
export function callLanguageOf(input: CallSimulationInput): LanguageCode {
  return languageFromCustomer(text(input.customer.language), agentLanguageOf(input));
}

/** The disposition topic of a call nobody answered, from how it ended. */
const missedTopic: Readonly<Record<Exclude<EndReason, 'completed' | 'customer_hung_up'>, DispositionTopic>> = {
  busy: 'busy',
  no_answer: 'no_answer',
  voicemail_left: 'voicemail',
  invalid_number: 'invalid_number',
  unreachable: 'unreachable',
};

type Connection = Pick<SimulatedCall, 'turns' | 'durationSeconds' | 'endReason' | 'intent'> & {
  commitments: Commitments;
};

function connect(input: CallSimulationInput, language: LanguageCode, rang: Ring): Connection {
  const random = seededRandom(`${input.seed}:talk`);
  const missed = { turns: [], durationSeconds: 0, intent: null, commitments: {} };
  switch (rang.outcome) {
    case 'answered': {
      const intent = chooseIntent(random, input.organizationType, input.customer.payment_status);
      return { ...converse(random, input, language, intent), intent };
    }
    case 'voicemail': {
      const turns = leaveVoicemail(random, input, language);
      return { ...missed, turns, durationSeconds: callSeconds(random, turns), endReason: 'voicemail_left' };
    }
    default:
      return { ...missed, endReason: rang.endReason ?? 'no_answer' };
  }
}

export function simulateCall(input: CallSimulationInput): SimulatedCall {
  // A malformed time would only surface later as "NaN" dates in a promise; refuse it up front.
  instantOf(input.at);
  const language = callLanguageOf(input);
  const rang = input.inbound
    ? answerInbound(seededRandom(`${input.seed}:ring`))
    : ring(seededRandom(`${input.seed}:ring`), input.customer.phone_number);
  const { turns, durationSeconds, endReason, intent, commitments } = connect(input, language, rang);
  const loanId = text(input.customer.loan_id);
  const facts: CallFacts = {
    organizationType: input.organizationType,
    outcome: rang.outcome,
    endReason,
    ringSeconds: rang.ringSeconds,
    language,
    intent,
    commitments,
    ...(loanId !== undefined && { loanId }),
  };
  const topic =
    intent ?? (endReason === 'completed' || endReason === 'customer_hung_up' ? null : missedTopic[endReason]);
  return {
    outcome: rang.outcome,
    ringSeconds: rang.ringSeconds,
    durationSeconds,
    endReason,
    language,
    turns,
    intent,
    disposition:
      topic === null ? null : chooseDisposition(input.dispositions, topic, seededRandom(`${input.seed}:disposition`)),
    summary: summarize(facts),
    extractedData: extractedDataOf(facts),
  };
}
