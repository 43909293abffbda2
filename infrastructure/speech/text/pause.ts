/**
 * The silence eSpeak puts between two clauses, by the punctuation that ends the first. Segments are
 * synthesized apart and eSpeak adds no pause at the end of its input, so the worker appends this.
 * Measured from eSpeak NG at 175 words per minute; eSpeak scales pauses with its pace, and so do we.
 */
import type { Pause } from './segment';

const millisecondsAt175: Readonly<Record<Pause, number>> = {
  none: 0,
  comma: 140,
  clause: 220,
  sentence: 290,
  exclamation: 330,
};

export const pauseMs = (pause: Pause, wordsPerMinute: number): number =>
  Math.round((millisecondsAt175[pause] * 175) / wordsPerMinute);
