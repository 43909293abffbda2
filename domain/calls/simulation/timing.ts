/**
 * When each utterance starts and how long it lasts, so recordings, transcripts and call durations
 * agree. Speech runs at roughly 14 to 17 characters a second (whatever the script: Indic syllables
 * take about as many code points as English ones); people pause before answering, the bot a bit less.
 */
import type { Random } from './random';
import type { Speaker, Turn } from './types';

const msPerCharacter: Readonly<Record<Speaker, number>> = { BOT: 62, HUMAN: 70 };

export function speakingMs(random: Random, speaker: Speaker, message: string): number {
  const characters = [...message].length;
  const pace = msPerCharacter[speaker] * (0.9 + random.next() * 0.25);
  return Math.max(600, Math.round(300 + characters * pace));
}

/** The pause before someone speaks, after the other party stopped. */
const pauseMs = (random: Random, speaker: Speaker): number =>
  speaker === 'HUMAN' ? random.int(500, 1800) : random.int(400, 1200);

/** Turns from spoken lines; the first starts `firstOffsetMs` after pickup. */
export function timeTurns(
  random: Random,
  lines: readonly { speaker: Speaker; message: string }[],
  firstOffsetMs: number,
): Turn[] {
  const turns: Turn[] = [];
  let offsetMs = firstOffsetMs;
  for (const { speaker, message } of lines) {
    if (turns.length > 0) offsetMs += pauseMs(random, speaker);
    const durationMs = speakingMs(random, speaker, message);
    turns.push({ speaker, message, offsetMs, durationMs });
    offsetMs += durationMs;
  }
  return turns;
}

/** Whole seconds from pickup until the line drops, a moment after the last word. */
export function callSeconds(random: Random, turns: readonly Turn[]): number {
  const last = turns[turns.length - 1];
  const endMs = last ? last.offsetMs + last.durationMs + random.int(300, 1500) : random.int(1000, 3000);
  return Math.ceil(endMs / 1000);
}
