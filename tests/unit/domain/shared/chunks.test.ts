import { chunkByBytes, jsonBytes, MAX_EVENT_LIST_BYTES, utf8Length } from '../../../../domain/shared/chunks';

describe('event size', () => {
  it('counts UTF-8 bytes as Node encodes them, surrogate pairs and lone surrogates included', () => {
    for (const text of [
      '',
      'plain',
      'नमस्ते',
      'தமிழ் 😀 x',
      'a\uD800b',
      '\uDC00',
      'end\uD83D',
      '\u0000\u07FF\u0800\uFFFF',
    ])
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('measures a value by its JSON', () => {
    const value = { name: 'आशा', lone: '\uD800' };
    expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
  });

  it('cuts a list into runs within the limit, in order, losing nothing', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({
      number: `+9198${String(i).padStart(8, '0')}`,
      name: 'म'.repeat(200),
    }));
    const chunks = chunkByBytes(items);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(jsonBytes(chunk)).toBeLessThanOrEqual(MAX_EVENT_LIST_BYTES);
    expect(chunks.flat()).toEqual(items);
  });

  it('keeps a short list whole and an empty one empty; an item over the limit is a run of its own', () => {
    expect(chunkByBytes([1, 2, 3])).toEqual([[1, 2, 3]]);
    expect(chunkByBytes([])).toEqual([]);
    expect(chunkByBytes(['x'.repeat(50), 'y', 'z'], 20)).toEqual([['x'.repeat(50)], ['y', 'z']]);
  });
});
