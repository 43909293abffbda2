import { isSpeakable } from '../../../infrastructure/speech/text/speakable';
import { escapeSsml } from '../../../infrastructure/speech/text/ssml';
import { pauseMs } from '../../../infrastructure/speech/text/pause';

describe('escapeSsml', () => {
  it('escapes the characters that would start markup or an entity', () => {
    expect(escapeSsml('a <b> & c > d')).toBe('a &lt;b&gt; &amp; c &gt; d');
    expect(escapeSsml('&amp;')).toBe('&amp;amp;');
  });

  it('turns control characters into spaces, one for one, and leaves other text alone', () => {
    expect(escapeSsml('a\u0000b\u0007c\nd\te')).toBe('a b c\nd\te');
    expect(escapeSsml('नमस्ते "quoted" \'text\'')).toBe('नमस्ते "quoted" \'text\'');
  });
});

describe('isSpeakable', () => {
  it('accepts text with a letter or digit in any script', () => {
    for (const text of ['a', '7', 'नमस्ते', 'வணக்கம்', '<b>hi</b>', '  ... x']) expect(isSpeakable(text)).toBe(true);
  });

  it('refuses markup characters, punctuation, symbols and space alone', () => {
    for (const text of ['', '   ', '<>&', '<><>&&', '...!?', '— –', '\n\t']) expect(isSpeakable(text)).toBe(false);
  });
});

describe('pauseMs', () => {
  it('follows the punctuation and slows down with a slower pace', () => {
    expect(pauseMs('none', 175)).toBe(0);
    expect(pauseMs('comma', 175)).toBeLessThan(pauseMs('clause', 175));
    expect(pauseMs('clause', 175)).toBeLessThan(pauseMs('sentence', 175));
    expect(pauseMs('sentence', 175)).toBeLessThan(pauseMs('exclamation', 175));
    expect(pauseMs('sentence', 140)).toBeGreaterThan(pauseMs('sentence', 175));
  });
});
