import {
  chunkByBytes,
  jsonBytes,
  jsonFitsIn,
  MAX_EVENT_LIST_BYTES,
  utf8Length,
} from '../../../../domain/shared/chunks';

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

  it('tells whether a value fits a size as its JSON does, at the very limit too', () => {
    class WithInherited {
      own = 'x';
    }
    Object.defineProperty(WithInherited.prototype, 'shared', { value: 'y'.repeat(50), enumerable: true });
    const values: unknown[] = [
      '',
      'plain',
      '\u0000\u001f"\\\n',
      'a\uD800b',
      'नमस्ते 😀',
      -1.7976931348623157e308,
      -2.2250738585072014e-308,
      NaN,
      true,
      null,
      undefined,
      [undefined, () => 1, Symbol('s'), 1e21],
      { first_name: 'आशा', nested: { deeper: { deepest: { list: ['\u0001'.repeat(20)] } } } },
      { when: new Date(0), skipped: undefined },
      new WithInherited(),
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, '\u0002'.repeat(i)])),
    ];
    for (const value of values) {
      const bytes = jsonBytes(value);
      for (const limit of [0, bytes - 1, bytes, bytes + 1])
        expect([limit, jsonFitsIn(value, limit)]).toEqual([limit, bytes <= limit]);
    }
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
