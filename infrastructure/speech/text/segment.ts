/**
 * Splits a request's text into the segments the worker pool synthesizes one at a time. Segments end
 * where eSpeak ends a clause anyway (after . ? ! । ॥ ; : , followed by a space, and at blank lines), so
 * cutting there changes neither pronunciation nor intonation; the pause eSpeak would have put between
 * the clauses is added back from `pause`. Clauses are joined up to `maxChars`, so each segment is long
 * enough to be cheap and short enough that no request holds a worker for long. The first segment is at
 * most `firstChars`: its audio is what the listener waits for, so a long first clause is cut at a space
 * (`cut`), and the worker gives that piece a continuing intonation instead of a final one.
 */
import { isSpeakable } from './speakable';

/** The pause after a segment's final punctuation, as eSpeak makes it between two clauses. */
export type Pause = 'none' | 'comma' | 'clause' | 'sentence' | 'exclamation';

export type Segment = {
  /** Offsets in the request's text: the segment is text.slice(start, end); segments tile the text. */
  start: number;
  end: number;
  text: string;
  /** The segment ends inside a clause, cut at a space. */
  cut: boolean;
  pause: Pause;
};

export type SegmentLimits = { firstChars: number; maxChars: number };

// A run of clause punctuation, closing quotes or brackets, then spaces up to the next word; or a blank line.
const clauseEnd = /([.?!;:,\u0964\u0965]+)["'\u2019\u201D)\]]*(\s+|$)|\n[^\S\n]*\n\s*/gu;
const lowercaseNext = /^\s*\p{Ll}/u;

const pauseOf = (punctuation: string, spaces: string): Pause => {
  if (punctuation.includes('!')) return 'exclamation';
  if (/[.?\u0964\u0965]/u.test(punctuation) || /\n[^\S\n]*\n/u.test(spaces)) return 'sentence';
  if (/[;:]/u.test(punctuation)) return 'clause';
  return punctuation.includes(',') ? 'comma' : 'none';
};

const piece = (text: string, start: number, end: number, pause: Pause, cut: boolean): Segment => ({
  start,
  end,
  text: text.slice(start, end),
  cut,
  pause,
});

/** The text cut after each clause end. A period before a lowercase word ends no sentence ("approx. two"). */
function clauses(text: string): Segment[] {
  const pieces: Segment[] = [];
  let start = 0;
  for (const match of text.matchAll(clauseEnd)) {
    const end = match.index + match[0].length;
    const punctuation = match[1] ?? '';
    if (punctuation === '.' && lowercaseNext.test(text.slice(end - (match[2]?.length ?? 0)))) continue;
    pieces.push(
      piece(text, start, end, match[1] === undefined ? 'sentence' : pauseOf(punctuation, match[2] ?? ''), false),
    );
    start = end;
  }
  if (start < text.length) pieces.push(piece(text, start, text.length, 'none', false));
  return pieces;
}

/** Where to cut `p` so its first part is at most `limit` characters: after the last space that fits, else after the first word. */
function cutPoint(p: Segment, limit: number): number | undefined {
  const words = [...p.text.matchAll(/\S+\s+(?=\S)/gu)].map((m) => m.index + m[0].length);
  const fitting = words.filter((offset) => offset <= limit);
  const offset = fitting.length > 0 ? fitting[fitting.length - 1] : words[0];
  return offset === undefined ? undefined : p.start + offset;
}

function cutAt(text: string, p: Segment, limit: number): Segment[] {
  const at = p.end - p.start > limit ? cutPoint(p, limit) : undefined;
  return at === undefined ? [p] : [piece(text, p.start, at, 'none', true), piece(text, at, p.end, p.pause, p.cut)];
}

function splitLong(text: string, p: Segment, limit: number): Segment[] {
  const [head, tail] = cutAt(text, p, limit);
  return tail ? [head!, ...splitLong(text, tail, limit)] : [head!];
}

/** `a` followed by `b` as one segment: it ends as `b` ends. */
const join = (text: string, a: Segment, b: Segment): Segment => piece(text, a.start, b.end, b.pause, b.cut);

/** Pieces without a letter or digit ("...", "--") join their neighbour, so every segment produces speech. */
function foldUnspeakable(text: string, pieces: Segment[]): Segment[] {
  const out: Segment[] = [];
  let pending: Segment | undefined; // unspeakable text before the first speakable piece
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (isSpeakable(p.text)) {
      out.push(pending ? join(text, pending, p) : p);
      pending = undefined;
    } else if (last) out[out.length - 1] = join(text, last, p);
    else pending = pending ? join(text, pending, p) : p;
  }
  return out;
}

/** Joins neighbours while they fit: the first segment up to `firstChars`, the others up to `maxChars`. */
function joinShort(text: string, pieces: Segment[], limits: SegmentLimits): Segment[] {
  const out: Segment[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    const limit = out.length === 1 ? limits.firstChars : limits.maxChars;
    if (last && !last.cut && p.end - last.start <= limit) out[out.length - 1] = join(text, last, p);
    else out.push(p);
  }
  return out;
}

export function segmentText(text: string, limits: SegmentLimits): Segment[] {
  const pieces = clauses(text).flatMap((p) => splitLong(text, p, limits.maxChars));
  const [first, ...rest] = pieces;
  if (!first) return [];
  return joinShort(text, foldUnspeakable(text, [...cutAt(text, first, limits.firstChars), ...rest]), limits);
}
