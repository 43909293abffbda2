/**
 * From eSpeak's word events to the words of the request's text: positions in the escaped segment map
 * back to the original words, expansions merge, times follow the speed and the segment's place.
 */
import { prepareRequest } from '../../../infrastructure/speech/prepare-request';
import { escapeSsml, ssmlSourceOffsets } from '../../../infrastructure/speech/text/ssml';
import { segmentWordTimestamps, type TimedSegment } from '../../../infrastructure/speech/word-timestamps';

/** eSpeak's 1-based character position of the `n`th occurrence of `what` in the text it was given. */
const positionOf = (given: string, what: string, n = 0) => {
  let at = -1;
  for (let i = 0; i <= n; i++) at = given.indexOf(what, at + 1);
  if (at < 0) throw new Error(`${what} not in ${given}`);
  return [...given.slice(0, at)].length + 1;
};

const segment = (text: string, events: [string | number, number][], fields: Partial<TimedSegment> = {}) => {
  const given = escapeSsml(text);
  return segmentWordTimestamps({
    text,
    source: { start: 0, end: text.length },
    words: {
      events: events.map(([at, audioMs]) => ({
        textPosition: typeof at === 'number' ? at : positionOf(given, at),
        audioMs,
      })),
      speechMs: 2000,
    },
    speed: 1,
    startMs: 0,
    durationMs: 2500,
    ...fields,
  });
};

describe('ssmlSourceOffsets', () => {
  it('gives, for each character eSpeak reads, the offset of the character of the text it stands for', () => {
    const text = 'a&b <c> 😀 नम';
    const offsets = ssmlSourceOffsets(text);
    const escaped = [...escapeSsml(text)];
    expect(offsets).toHaveLength(escaped.length);
    // Every character of an entity stands for its one source character; an emoji is one character but two UTF-16 units.
    expect(offsets.slice(0, 7)).toEqual([0, 1, 1, 1, 1, 1, 2]);
    expect(escaped[offsets.indexOf(text.indexOf('😀'))]).toBe('😀');
    expect(text[offsets[escaped.length - 1]!]).toBe('म');
  });
});

describe('segmentWordTimestamps', () => {
  it('names the words as written, merges a word spoken as several, and ends each where the next starts', () => {
    const text = 'Pay 4,500 to AT&T, now.';
    const words = segment(text, [
      ['Pay', 0],
      ['4', 300],
      [',500', 700], // eSpeak: "four thousand" then "five hundred", inside the same written word
      ['500', 900],
      ['to', 1200],
      ['AT', 1400],
      ['&amp;', 1550],
      ['T,', 1700],
      ['now', 1800],
    ]);
    expect(words).toEqual([
      { word: 'Pay', startMs: 0, endMs: 300 },
      { word: '4,500', startMs: 300, endMs: 1200 },
      { word: 'to', startMs: 1200, endMs: 1400 },
      { word: 'AT&T', startMs: 1400, endMs: 1800 },
      { word: 'now', startMs: 1800, endMs: 2000 },
    ]);
  });

  it('ignores events on spaces, before the text, past it, or going back', () => {
    const text = 'one two three';
    const words = segment(text, [
      [0, 0],
      ['one', 0],
      [4, 200], // the space after "one"
      ['two', 400],
      ['one', 500],
      ['three', 800],
      [99, 900],
    ]);
    expect(words.map((w) => [w.word, w.startMs, w.endMs])).toEqual([
      ['one', 0, 400],
      ['two', 400, 800],
      ['three', 800, 2000],
    ]);
  });

  it('gives a word eSpeak spoke together with the one before it a share of that time, by length', () => {
    // eSpeak says "on the" as one word; a dash alone is no word unless eSpeak says it.
    const words = segment('due on the - fifth', [
      ['due', 0],
      ['on', 300],
      ['fifth', 800],
    ]);
    expect(words).toEqual([
      { word: 'due', startMs: 0, endMs: 300 },
      { word: 'on', startMs: 300, endMs: 500 },
      { word: 'the', startMs: 500, endMs: 800 },
      { word: 'fifth', startMs: 800, endMs: 2000 },
    ]);
    // Before the first word eSpeak reports, words share its time.
    expect(segment('the end', [['end', 600]]).map((w) => [w.word, w.startMs, w.endMs])).toEqual([
      ['the', 600, 1300],
      ['end', 1300, 2000],
    ]);
  });

  it('scales times by the speed and places them after the earlier segments', () => {
    const words = segment(
      'slow down',
      [
        ['slow', 0],
        ['down', 600],
      ],
      { speed: 2, startMs: 1000.4, durationMs: 1100 },
    );
    expect(words).toEqual([
      { word: 'slow', startMs: 1000, endMs: 1300 },
      { word: 'down', startMs: 1300, endMs: 2000 },
    ]);
  });

  it('keeps every time within the speech of the segment', () => {
    const words = segment(
      'a b',
      [
        ['a', 0],
        ['b', 5000],
      ],
      { durationMs: 1500 },
    );
    expect(words).toEqual([
      { word: 'a', startMs: 0, endMs: 1500 },
      { word: 'b', startMs: 1500, endMs: 1500 },
    ]);
  });

  it('maps the positions of every prepared segment back to the request, whatever was escaped or trimmed', () => {
    const text = '  Namaste Mr. Sharma & <team>, your long first clause gets cut here! नमस्ते दुनिया 😀 ok.  ';
    const segments = prepareRequest(
      { text, voiceId: 'Ogbs15oBevLzXsUuTtA1', language: 'en', sampleRate: 16000, speed: 1 },
      { firstChars: 24, maxChars: 40 },
    );
    expect(segments.length).toBeGreaterThan(2);
    const timed = segments.flatMap((s) => {
      // One event at the first character of each word of the text eSpeak is given.
      const given = [...s.job.text];
      const events = given.flatMap((c, i) => (/\S/u.test(c) && (i === 0 || /\s/u.test(given[i - 1]!)) ? [i + 1] : []));
      return segmentWordTimestamps({
        text,
        source: s.source,
        words: { events: events.map((textPosition, i) => ({ textPosition, audioMs: i * 100 })), speechMs: 5000 },
        speed: 1,
        startMs: 0,
        durationMs: 5000,
      }).map((w) => w.word);
    });
    expect(timed).toEqual(
      text
        .trim()
        .split(/\s+/u)
        .map((w) => w.replace(/^\p{P}+|\p{P}+$/gu, '') || w),
    );
  });
});
