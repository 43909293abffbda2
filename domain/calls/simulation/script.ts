/**
 * What is said in an answered call, in order, before timing. The agent greets, the customer answers,
 * the agent says its lines, the customer shows the intent, the agent closes. A wrong number or a busy
 * customer cuts in right after the greeting, and an unhappy customer may hang up before the closing.
 */
import type { PhraseBook } from './phrasebooks/phrase-book';
import type { Random } from './random';
import type { CustomerIntent, Speaker } from './types';

export type ScriptLine = { speaker: Speaker; template: string };

export type Script = { lines: ScriptLine[]; customerHungUp: boolean };

export type ScriptPlan = {
  book: PhraseBook;
  intent: CustomerIntent;
  greeting: string;
  /** The agent's lines after the greeting; the customer's intent answers the last one. */
  agentLines: readonly string[];
};

/** How likely the customer is to hang up instead of hearing the closing. */
const hangUpOdds: Readonly<Record<CustomerIntent, number>> = {
  wrong_number: 0.5,
  not_interested: 0.35,
  dispute: 0.2,
  callback_later: 0.1,
  request_more_time: 0.03,
  promise_to_pay: 0.02,
  already_paid: 0.05,
  interested: 0.02,
};

/** Whether the customer answers the greeting with the intent itself, skipping the agent's lines. */
function cutsIn(random: Random, intent: CustomerIntent): boolean {
  if (intent === 'wrong_number') return true;
  return intent === 'callback_later' && random.chance(0.5);
}

export function writeScript(random: Random, plan: ScriptPlan): Script {
  const { book, intent } = plan;
  const bot = (template: string): ScriptLine => ({ speaker: 'BOT', template });
  const human = (template: string): ScriptLine => ({ speaker: 'HUMAN', template });
  const reply = human(random.pick(book.replies[intent]));

  const lines: ScriptLine[] = [bot(plan.greeting)];
  if (cutsIn(random, intent) || plan.agentLines.length === 0) {
    lines.push(reply);
  } else {
    lines.push(human(random.pick(book.acknowledgements)));
    plan.agentLines.forEach((line, index) => {
      lines.push(bot(line));
      lines.push(index === plan.agentLines.length - 1 ? reply : human(random.pick(book.fillers)));
    });
  }

  if (random.chance(hangUpOdds[intent])) return { lines, customerHungUp: true };
  lines.push(bot(book.closings[intent]));
  if (random.chance(0.6)) lines.push(human(random.pick(book.farewells)));
  return { lines, customerHungUp: false };
}
