/**
 * eSpeak NG reads its input as SSML, so the characters that start markup or entities must reach it
 * escaped, or "a <b> c" would lose "<b>" and "AT&T" could swallow what follows. Control characters
 * become spaces: eSpeak receives a C string, and a NUL would end it early.
 */
const entities: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

// Every control character but tab, line feed and carriage return.
const controlCharacters = /(?![\t\n\r])\p{Cc}/gu;

export const escapeSsml = (text: string): string =>
  text.replace(/[&<>]/g, (c) => entities[c]!).replace(controlCharacters, ' ');
