/**
 * Which of the campaign's dispositions a simulated call gets. Dispositions are named by each
 * organization ("PTP", "Promise to Pay", "Call Back Later", "Not Interested"), so the choice is by
 * keywords in the name, most specific first, and a name that negates a keyword ("Not Interested",
 * "Unpaid", "Broken Promise") does not count as that keyword.
 */
import type { Random } from './random';
import type { CustomerIntent, DispositionRef } from './types';

/** What a disposition should describe: the customer's intent, or why nobody answered. */
export type DispositionTopic = CustomerIntent | 'busy' | 'no_answer' | 'voicemail' | 'invalid_number' | 'unreachable';

/**
 * Keywords match whole words, ignoring case; a space or hyphen also matches none (`call back` finds
 * "Callback"); a trailing `*` matches any ending (`reschedul*`). Earlier keywords are preferred.
 */
export const dispositionKeywords: Readonly<Record<DispositionTopic, readonly string[]>> = {
  promise_to_pay: ['promise to pay', 'ptp', 'promis*', 'will pay', 'agreed to pay', 'commit*'],
  request_more_time: ['more time', 'extension', 'extend*', 'reschedul*', 'promise to pay', 'ptp', 'promis*'],
  already_paid: ['already paid', 'paid', 'payment done', 'payment received', 'received'],
  dispute: ['dispute*', 'disagree*', 'complaint', 'wrong amount', 'escalat*'],
  wrong_number: ['wrong number', 'wrong no', 'wrong person', 'wrong party', 'wrong contact', 'not the customer'],
  callback_later: ['call back', 'call later', 'call me later', 'follow up', 'reschedul*'],
  interested: ['interested', 'hot lead', 'warm lead', 'qualified'],
  not_interested: ['not interested', 'no interest', 'uninterested', 'refus*', 'declin*', 'do not call', 'dnd'],
  busy: ['busy', 'engaged'],
  no_answer: [
    'no answer',
    'not answered',
    'unanswered',
    'no response',
    'did not answer',
    'no pickup',
    'not picked',
    'rnr',
    'ringing',
    'no contact',
  ],
  voicemail: ['voicemail', 'voice mail', 'answering machine', 'vm', 'no contact'],
  invalid_number: ['invalid number', 'invalid', 'wrong number', 'failed', 'no contact'],
  unreachable: ['unreachable', 'not reachable', 'switched off', 'out of service', 'failed', 'no contact'],
};

/** Words that, just before a keyword, turn it into its opposite. */
const negations = new Set(['not', 'no', 'non', 'never', 'un', 'broken', 'without']);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Patterns by keyword: the same few keywords are matched for every call. (`matchAll` copies a pattern, so sharing one is safe.) */
const patterns = new Map<string, RegExp>();

function keywordPattern(keyword: string): RegExp {
  const known = patterns.get(keyword);
  if (known) return known;
  const prefix = keyword.endsWith('*');
  const body = escape(prefix ? keyword.slice(0, -1) : keyword).replace(/[\s-]+/g, '[\\s_-]*');
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${body}${prefix ? '' : '(?![\\p{L}\\p{N}])'}`, 'giu');
  if (patterns.size < 1000) patterns.set(keyword, pattern);
  return pattern;
}

/**
 * Answers of `nameMentions` by keyword and name: every call of a campaign asks about the same few names,
 * each against dozens of keywords, and a Unicode pattern costs microseconds a match. Bounded.
 */
const mentions = new Map<string, boolean>();
const MAX_MENTIONS = 10_000;

/** True when the name says the keyword and not its negation. */
export function nameMentions(name: string, keyword: string): boolean {
  const key = `${keyword}\u0000${name}`;
  let answer = mentions.get(key);
  if (answer === undefined) {
    answer = mentionedIn(name, keyword);
    if (mentions.size >= MAX_MENTIONS) mentions.clear();
    mentions.set(key, answer);
  }
  return answer;
}

function mentionedIn(name: string, keyword: string): boolean {
  const text = name.toLowerCase();
  for (const match of text.matchAll(keywordPattern(keyword))) {
    const before = text
      .slice(0, match.index)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word !== '');
    const previous = before[before.length - 1];
    if (previous === undefined || !negations.has(previous)) return true;
  }
  return false;
}

/** The first disposition, in keyword order, whose name fits the topic. */
export function matchDisposition(
  dispositions: readonly DispositionRef[],
  topic: DispositionTopic,
): DispositionRef | null {
  for (const keyword of dispositionKeywords[topic]) {
    const found = dispositions.find((disposition) => nameMentions(disposition.name, keyword));
    if (found) return found;
  }
  return null;
}

const unansweredTopics: readonly DispositionTopic[] = [
  'busy',
  'no_answer',
  'voicemail',
  'invalid_number',
  'unreachable',
];
const allTopics = Object.keys(dispositionKeywords) as DispositionTopic[];

/**
 * A matching disposition; with none, an answered call still gets one (the agent always files a
 * conversation), preferring names that describe no known topic ("Other"), then any that does not
 * describe an unanswered call. An unanswered call without a matching disposition gets none.
 */
export function chooseDisposition(
  dispositions: readonly DispositionRef[],
  topic: DispositionTopic,
  random: Random,
): DispositionRef | null {
  const matched = matchDisposition(dispositions, topic);
  if (matched || dispositions.length === 0 || unansweredTopics.includes(topic)) return matched;
  const describes = (disposition: DispositionRef, topics: readonly DispositionTopic[]) =>
    topics.some((other) => matchDisposition([disposition], other) !== null);
  const generic = dispositions.filter((disposition) => !describes(disposition, allTopics));
  if (generic.length > 0) return random.pick(generic);
  const answeredOnes = dispositions.filter((disposition) => !describes(disposition, unansweredTopics));
  return random.pick(answeredOnes.length > 0 ? answeredOnes : dispositions);
}
