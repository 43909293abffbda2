/**
 * The built-in chat platform's message, as data: its platform id, the statuses it goes through, the
 * customer's reply (sometimes), the agent's answer in the customer's language when the chat has
 * conversation settings, and the close with a disposition. Pure and deterministic for a seed (the
 * message id), so a replayed or retried message is the same message. Separate random streams for
 * delivery, timing and talk keep one from shifting another.
 */
import { indianDateOf, instantOf } from '../../shared/calendar';
import { commitmentsFor, type Commitments } from '../../calls/simulation/commitments';
import { text } from '../../calls/simulation/conversation';
import { chooseDisposition, matchDisposition } from '../../calls/simulation/dispositions';
import { chooseIntent } from '../../calls/simulation/intents';
import { languageFromCustomer, type LanguageCode } from '../../shared/languages';
import { fillTemplate } from '../../shared/placeholders';
import { phrasesFor, spokenDate } from '../../calls/simulation/phrases';
import { seededRandom, type Random } from '../../calls/simulation/random';
import type { CustomerIntent, DispositionRef } from '../../calls/simulation/types';
import { deliver } from './delivery';
import type { ChatSimulationInput, ChatStep, SimulatedChat } from './types';

export type * from './types';

/** A conversation nobody continues is closed this long after its last activity. */
export const IDLE_CLOSE_SECONDS = 600;

/** The platform's id for a message: `bmsg.` and 32 hex digits, from the seed. */
export function platformMsgIdOf(seed: string): string {
  const random = seededRandom(`${seed}:id`);
  return `bmsg.${Array.from({ length: 4 }, () => random.int(0, 0xffffffff).toString(16).padStart(8, '0')).join('')}`;
}

/** The customer's language word if it names one, else the agent's language, else the template's. */
export function chatLanguageOf(input: ChatSimulationInput): LanguageCode {
  return languageFromCustomer(
    text(input.customer.language),
    input.conversation?.agent.language ?? input.templateLanguage,
  );
}

function context(input: ChatSimulationInput, commitments: Commitments): Record<string, unknown> {
  const name = [text(input.customer.first_name), text(input.customer.last_name)].filter(Boolean).join(' ');
  return {
    name,
    ...input.customer,
    agent_name: input.conversation?.agent.name ?? '',
    ...(commitments.promisedDate !== undefined && { promised_date: commitments.promisedDate }),
    ...(commitments.promisedAmount !== undefined && { promised_amount: commitments.promisedAmount }),
  };
}

const summaries: Readonly<Record<CustomerIntent, string>> = {
  promise_to_pay: 'The customer promised to pay',
  request_more_time: 'The customer asked for more time to pay',
  already_paid: 'The customer said the payment was already made',
  dispute: 'The customer disputed the amount',
  wrong_number: 'The message reached the wrong person',
  callback_later: 'The customer asked to be contacted later',
  interested: 'The customer is interested',
  not_interested: 'The customer is not interested',
};

/** The words of a reply and, with an agent, its answer and the customer's goodbye. */
function talk(
  random: Random,
  input: ChatSimulationInput,
  language: LanguageCode,
  intent: CustomerIntent,
): { role: 'user' | 'assistant'; content: string }[] {
  const book = phrasesFor(language);
  const commitments = commitmentsFor(random, intent, input.at, input.customer);
  const record = context(input, commitments);
  const formatDate = spokenDate(language, Number(indianDateOf(input.at).slice(0, 4)));
  const fill = (template: string) => fillTemplate(template, record, { formatDate }).trim();
  const lines: { role: 'user' | 'assistant'; content: string }[] = [
    { role: 'user', content: fill(random.pick(book.replies[intent])) },
  ];
  if (!input.conversation) return lines;
  lines.push({ role: 'assistant', content: fill(book.closings[intent]) });
  if (random.chance(0.6)) lines.push({ role: 'user', content: fill(random.pick(book.farewells)) });
  return lines;
}

/** Seconds before a line of talk: the agent answers at once; the customer's first reply takes longest. */
function waitBefore(role: 'user' | 'assistant', index: number): [number, number] {
  if (role === 'assistant') return [2, 6];
  return index === 0 ? [10, 180] : [5, 60];
}

/** What a simulated customer writes first to an organization's number (the platform's inbound traffic). */
const OPENINGS = [
  'Hi, I received a message from this number. Can you help?',
  'Hello, I have a question about my account.',
  'Hi, I would like to know more, please.',
  'Hello, can someone tell me what this is about?',
];

/** The first message of a simulated inbound chat, from its seed (the message id). */
export function inboundOpeningOf(seed: string): string {
  return seededRandom(`${seed}:opening`).pick(OPENINGS);
}

/**
 * An inbound chat: the customer's first message is in already; the agent reads it and answers in the
 * customer's language, the customer may say goodbye, and the chat closes with a disposition.
 */
function inboundChat(input: ChatSimulationInput, platformMsgId: string, language: LanguageCode): SimulatedChat {
  const clock = seededRandom(`${input.seed}:timing`);
  let now = 0;
  const after = (min: number, max: number) => (now += clock.int(min, max));
  const steps: ChatStep[] = [{ afterSeconds: after(1, 3), kind: 'status', status: 'Read' }];
  const talkRandom = seededRandom(`${input.seed}:talk`);
  const intent = chooseIntent(talkRandom, input.organizationType, input.customer.payment_status);
  // The customer's first line is the message received: the talk goes on from the agent's answer.
  talk(talkRandom, input, language, intent)
    .slice(1)
    .forEach((line, i) => {
      steps.push({
        afterSeconds: after(...waitBefore(line.role, i + 1)),
        kind: 'message',
        entryId: `${platformMsgId}:${i + 2}`,
        role: line.role,
        content: line.content,
      });
    });
  const disposition: DispositionRef | null = input.conversation
    ? chooseDisposition(input.conversation.dispositions, intent, seededRandom(`${input.seed}:disposition`))
    : null;
  steps.push({
    afterSeconds: (now += IDLE_CLOSE_SECONDS),
    kind: 'closed',
    reason: 'completed',
    disposition,
    summary: `The customer wrote first. ${summaries[intent]}${input.conversation ? '; the agent answered' : ''}.`,
  });
  return { platformMsgId, outcome: 'replied', language, intent, steps };
}

export function simulateChat(input: ChatSimulationInput): SimulatedChat {
  instantOf(input.at);
  const platformMsgId = platformMsgIdOf(input.seed);
  const language = chatLanguageOf(input);
  if (input.inbound) return inboundChat(input, platformMsgId, language);
  const delivery = deliver(seededRandom(`${input.seed}:delivery`), input.to);
  const clock = seededRandom(`${input.seed}:timing`);
  const steps: ChatStep[] = [];
  let now = 0;
  const after = (min: number, max: number) => (now += clock.int(min, max));

  if (delivery.failure) {
    if (delivery.failure.afterSent) steps.push({ afterSeconds: after(1, 3), kind: 'status', status: 'Sent' });
    steps.push({ afterSeconds: after(1, 5), kind: 'status', status: 'Failed', errors: [delivery.failure.error] });
    return { platformMsgId, outcome: 'failed', language, intent: null, steps };
  }

  const dispositions = input.conversation?.dispositions ?? [];
  const unanswered = (reason: string, summary: string) => {
    steps.push({
      afterSeconds: (now += IDLE_CLOSE_SECONDS),
      kind: 'closed',
      reason,
      disposition: input.conversation ? matchDisposition(dispositions, 'no_answer') : null,
      summary,
    });
    return { platformMsgId, outcome: delivery.outcome, language, intent: null, steps };
  };
  steps.push({ afterSeconds: after(1, 3), kind: 'status', status: 'Sent' });
  if (delivery.outcome === 'undelivered')
    return unanswered('undelivered', 'The message was sent but never reached the customer’s phone.');
  steps.push({ afterSeconds: after(1, 20), kind: 'status', status: 'Delivered' });
  if (delivery.outcome === 'unread') return unanswered('unread', 'The message was delivered but not read.');
  steps.push({ afterSeconds: after(5, 600), kind: 'status', status: 'Read' });
  if (delivery.outcome === 'read') return unanswered('no_reply', 'The customer read the message and did not reply.');

  const talkRandom = seededRandom(`${input.seed}:talk`);
  const intent = chooseIntent(talkRandom, input.organizationType, input.customer.payment_status);
  talk(talkRandom, input, language, intent).forEach((line, i) => {
    const wait = waitBefore(line.role, i);
    steps.push({
      afterSeconds: after(...wait),
      kind: 'message',
      entryId: `${platformMsgId}:${i + 1}`,
      role: line.role,
      content: line.content,
    });
  });
  const disposition: DispositionRef | null = input.conversation
    ? chooseDisposition(dispositions, intent, seededRandom(`${input.seed}:disposition`))
    : null;
  steps.push({
    afterSeconds: (now += IDLE_CLOSE_SECONDS),
    kind: 'closed',
    reason: 'completed',
    disposition,
    summary: `${summaries[intent]}${input.conversation ? '; the agent answered' : ''}.`,
  });
  return { platformMsgId, outcome: 'replied', language, intent, steps };
}
