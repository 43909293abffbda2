import { segmentText, type Segment } from '../../../infrastructure/speech/text/segment';

const limits = { firstChars: 24, maxChars: 100 };
const texts = (segments: Segment[]) => segments.map((s) => s.text);

describe('segmentText', () => {
  it('tiles the text: segments are consecutive slices that add up to the whole', () => {
    const text = '  Hello there. How are you today, my friend? I am fine; thanks!\n\nNew paragraph here.  ';
    const segments = segmentText(text, limits);
    expect(segments.map((s) => s.text).join('')).toBe(text);
    segments.forEach((s, i) => {
      expect(s.text).toBe(text.slice(s.start, s.end));
      expect(s.start).toBe(i === 0 ? 0 : segments[i - 1]!.end);
    });
    expect(segments[segments.length - 1]!.end).toBe(text.length);
  });

  it('cuts after clause punctuation followed by a space, keeping the punctuation with its clause', () => {
    const segments = segmentText('Your payment is due on the fifth of March. Please pay on time to avoid a late fee.', {
      firstChars: 24,
      maxChars: 50,
    });
    expect(texts(segments)).toEqual([
      'Your payment is due on ',
      'the fifth of March. ',
      'Please pay on time to avoid a late fee.',
    ]);
  });

  it('keeps a short first clause whole and joins later clauses up to the maximum length', () => {
    const segments = segmentText('Hello! One, two, three, four. Five; six: seven.', limits);
    expect(texts(segments)).toEqual(['Hello! One, two, three, ', 'four. Five; six: seven.']);
  });

  it('cuts a long first clause at the last space that fits, marking the cut', () => {
    const [first, second] = segmentText('Your monthly instalment for the loan is now due.', limits);
    expect(first).toMatchObject({ text: 'Your monthly instalment ', cut: true, pause: 'none' });
    expect(second).toMatchObject({ text: 'for the loan is now due.', cut: false });
  });

  it('cuts a clause longer than the maximum at spaces', () => {
    const clause = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';
    const segments = segmentText(clause, { firstChars: 24, maxChars: 100 });
    expect(segments.length).toBeGreaterThan(4);
    for (const s of segments) expect(s.text.length).toBeLessThanOrEqual(100);
    expect(segments.slice(0, -1).every((s) => s.cut)).toBe(true);
  });

  it('does not cut numbers, decimals or abbreviations followed by a lowercase word', () => {
    const text = 'The fee is approx. two thousand, i.e. 2,000.50 rupees in all, sir.';
    const segments = segmentText(text, { firstChars: 100, maxChars: 100 });
    expect(texts(segments)).toEqual([text]);
  });

  it('names the pause each segment ends with', () => {
    // Limits just above the longest clause: no clause is joined to another, none is cut.
    const pauses = segmentText('One. Two! Three? Four; five, six\n\nSeven', { firstChars: 7, maxChars: 7 }).map(
      (s) => s.pause,
    );
    expect(pauses).toEqual(['sentence', 'exclamation', 'sentence', 'clause', 'comma', 'sentence', 'none']);
  });

  it('treats the danda as the end of a sentence', () => {
    const segments = segmentText('नमस्ते। आप कैसे हैं?', { firstChars: 12, maxChars: 12 });
    expect(segments.map((s) => [s.text, s.pause])).toEqual([
      ['नमस्ते। ', 'sentence'],
      ['आप कैसे हैं?', 'sentence'],
    ]);
  });

  it('joins pieces without letters or digits to a neighbour, so every segment has something to say', () => {
    expect(texts(segmentText('... Hello there. !!! ?? Bye.', { firstChars: 16, maxChars: 16 }))).toEqual([
      '... Hello there. !!! ?? ',
      'Bye.',
    ]);
  });

  it('gives nothing for text without words', () => {
    expect(segmentText('<>&', limits)).toEqual([]);
    expect(segmentText('', limits)).toEqual([]);
  });
});
