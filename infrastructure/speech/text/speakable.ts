/**
 * Text is speakable when it holds at least one letter or digit, in any script. Punctuation, symbols
 * and markup characters alone ("<>&", "...", "!!") give no words, so such a request is refused as
 * `invalid_request` instead of billing characters for silence or for eSpeak's names of symbols.
 */
const letterOrDigit = /[\p{L}\p{N}]/u;

export const isSpeakable = (text: string): boolean => letterOrDigit.test(text);
