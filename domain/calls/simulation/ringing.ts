/**
 * Whether the phone is picked up. A number that cannot be dialed fails at once, every time, as a real
 * carrier rejects it; a valid one is answered most of the time, and otherwise busy, unanswered, sent
 * to voicemail or unreachable, with ringing lengths in the range carriers show.
 */
import { assertNever } from '../../shared/decider';
import type { Random } from './random';
import type { EndReason, RingOutcome } from './types';

export type Ring = { outcome: RingOutcome; ringSeconds: number; endReason: EndReason | null };

/** 7 to 15 digits, an optional leading `+`; spaces, dashes, dots and brackets are only formatting. */
export function isDialable(phoneNumber: unknown): boolean {
  if (typeof phoneNumber !== 'string' && typeof phoneNumber !== 'number') return false;
  const compact = String(phoneNumber)
    .trim()
    .replace(/[\s\-().]/g, '');
  return /^\+?\d{7,15}$/.test(compact);
}

const odds: readonly (readonly [RingOutcome, number])[] = [
  ['answered', 68],
  ['no_answer', 14],
  ['busy', 8],
  ['voicemail', 6],
  ['failed', 4],
];

/** An inbound call: the agent answers it after one to four seconds of ringing. */
export function answerInbound(random: Random): Ring {
  return { outcome: 'answered', ringSeconds: random.int(1, 4), endReason: null };
}

/** `endReason` is null when answered: the conversation decides how it ends. */
export function ring(random: Random, phoneNumber: unknown): Ring {
  if (!isDialable(phoneNumber)) return { outcome: 'failed', ringSeconds: 0, endReason: 'invalid_number' };
  const outcome = random.weighted(odds);
  switch (outcome) {
    case 'answered':
      return { outcome, ringSeconds: random.int(3, 20), endReason: null };
    case 'busy':
      return { outcome, ringSeconds: random.int(1, 5), endReason: 'busy' };
    case 'no_answer':
      return { outcome, ringSeconds: random.int(30, 45), endReason: 'no_answer' };
    case 'voicemail':
      return { outcome, ringSeconds: random.int(18, 30), endReason: 'voicemail_left' };
    case 'failed':
      return { outcome, ringSeconds: random.int(0, 3), endReason: 'unreachable' };
    default:
      return assertNever(outcome);
  }
}
