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

/**
 * For each character (code point) of `escapeSsml(text)`, the offset in `text` (UTF-16 units) of the
 * character it stands for: eSpeak reports word positions in characters of what it was given, and an
 * entity is five or four of them for one of the text's.
 */
export function ssmlSourceOffsets(text: string): number[] {
  const offsets: number[] = [];
  for (let offset = 0; offset < text.length;) {
    const codePoint = text.codePointAt(offset)!;
    const entity = entities[text[offset]!];
    for (let i = 0; i < (entity?.length ?? 1); i++) offsets.push(offset);
    offset += codePoint > 0xffff ? 2 : 1;
  }
  return offsets;
}
