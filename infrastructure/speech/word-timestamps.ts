/**
 * Word timestamps of one segment, from eSpeak's word events. eSpeak reports where each word starts in
 * the text it was given (characters of the SSML-escaped segment, 1-based) and in its audio; this maps
 * the position back to the word of the request's text (a run of non-space characters) and the time to
 * the request's audio: the speed stage makes the audio 1/speed as long, resampling keeps time, and the
 * segment starts after the audio of every earlier segment (their pauses included).
 *
 * eSpeak may speak one written word as several (a number such as "4,500" is four thousand five
 * hundred, "AT&T" is A T and T): those events fall inside the same word and make one. It may also
 * speak two words as one ("on the"): a word with a letter or digit but no event of its own shares the
 * time of the word before it, in proportion to their lengths. An event on a space or on what the
 * engine added (the comma ending a cut segment) starts no word.
 */
import type { WordTimestamp } from '../../application/ports/speech-engine';
import { ssmlSourceOffsets } from './text/ssml';
import { isSpeakable } from './text/speakable';
import type { SegmentWords } from './worker/protocol';

export type TimedSegment = {
  /** The request's text. */
  text: string;
  /** Where the segment's text given to eSpeak comes from in `text`. */
  source: { start: number; end: number };
  words: SegmentWords;
  speed: number;
  /** Where the segment's audio starts in the request's audio, and how long it is, in ms. */
  startMs: number;
  durationMs: number;
};

/** Punctuation around a word ("(or", "Sharma,", '"Team".') is not part of it; symbols ("50%", "₹500") are. */
const edgePunctuation = /^\p{P}+|\p{P}+$/gu;

const shown = (token: string): string => token.replace(edgePunctuation, '') || token;

/** When each word of `tokens` that eSpeak reported starts (ms into the segment, at the requested speed). */
function reportedStarts(segment: TimedSegment, spoken: string, speechEnd: number): Map<number, number> {
  const offsets = ssmlSourceOffsets(spoken);
  // The word each offset of `spoken` belongs to; -1 for spaces.
  const wordAt = new Int32Array(spoken.length).fill(-1);
  let count = 0;
  for (const match of spoken.matchAll(/\S+/gu)) wordAt.fill(count++, match.index, match.index + match[0].length);
  const starts = new Map<number, number>();
  let last = { word: -1, ms: 0 };
  for (const event of segment.words.events) {
    const offset = offsets[event.textPosition - 1];
    const word = offset === undefined ? -1 : wordAt[offset]!;
    if (word <= last.word) continue; // a space, outside the text, the same word again, or going back
    last = { word, ms: Math.min(Math.max(event.audioMs / segment.speed, last.ms), speechEnd) };
    starts.set(word, last.ms);
  }
  return starts;
}

export function segmentWordTimestamps(segment: TimedSegment): WordTimestamp[] {
  const spoken = segment.text.slice(segment.source.start, segment.source.end);
  const tokens = [...spoken.matchAll(/\S+/gu)].map((m) => m[0]);
  const speechEnd = Math.min(segment.words.speechMs / segment.speed, segment.durationMs);
  const reported = reportedStarts(segment, spoken, speechEnd);

  // Runs of words sharing a span: a reported word and the unreported ones after it (those before the
  // first reported word go with it).
  const runs: { start: number; words: number[] }[] = [];
  const pending: number[] = [];
  tokens.forEach((token, i) => {
    const start = reported.get(i);
    if (start !== undefined) runs.push({ start, words: [...pending.splice(0), i] });
    else if (isSpeakable(token)) (runs.length > 0 ? runs[runs.length - 1]!.words : pending).push(i);
  });
  if (pending.length > 0) runs.push({ start: 0, words: pending });

  const at = (ms: number) => Math.floor(segment.startMs + ms);
  return runs.flatMap((run, r) => {
    const end = runs[r + 1]?.start ?? speechEnd;
    const names = run.words.map((i) => shown(tokens[i]!));
    const letters = names.reduce((n, name) => n + name.length, 0);
    let from = run.start;
    return names.map((word) => {
      const start = from;
      from += ((end - run.start) * word.length) / letters;
      return { word, startMs: at(start), endMs: at(from) };
    });
  });
}
