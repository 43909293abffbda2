/**
 * fast-check arbitraries written from JSON Schemas (the request bodies of /openapi.json, the client
 * messages of /asyncapi.json): values the schema accepts, or nearly (`valid`), and the same values
 * broken in the ways a hostile or careless client breaks them (`malformed`): a wrong type somewhere, a
 * key missing or added (`__proto__`, `constructor`), strings with NUL, lone surrogates, bidirectional
 * overrides or 200,000 characters, numbers JSON cannot hold, nesting thousands of levels deep.
 *
 * Values are serialized by `toJson`, which writes `Raw` pieces as they are (`1e400`, a deep nesting)
 * and keys such as `__proto__` as ordinary keys.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;
/** Values worth sending for a property of this name (the ids of the fixture, real voices...). */
export type Hints = Readonly<Record<string, readonly unknown[]>>;

/** JSON text written into a value as it is, where a JavaScript value cannot say it. */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of `value`; `Raw` pieces verbatim, every own key written (`__proto__` included). */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${toJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** An object with `key` as an own, enumerable property, even when `key` is `__proto__`. */
export function withKey(target: object, key: string, value: unknown): Record<string, unknown> {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(target)) as Record<string, unknown>;
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * Strings that have broken parsers, stores and logs before. None contains what the leak check looks
 * for in answers (file paths, `node_modules`, stack frames), so an echo of one is never taken for a leak.
 */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\ud83d',
  '\u202eevil\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  '\u0645\u0631\u062d\u0628\u0627',
  '\u200b\u200c\u200d\ufeff',
  'e\u0301\u0302\u0303\u0304\u0305\u0306',
  '\ud83d\ude00\ud83d\udc69\u200d\ud83d\udc69\u200d\ud83d\udc67',
  '\u2028\u2029',
  '\r\n\r\n',
  '\t\v\f',
  '\u001b[31m',
  '\uffff\ufffe',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  '%00',
  '%',
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  '{"$gt":""}',
  '$where',
  '{{constructor.constructor("return 1")()}}',
  '{{__proto__}}',
  '{{loan_id}}{{',
  '${process.env}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e400',
  'true',
  '[]',
  '{}',
  '0x7fffffff',
  '+919812345678',
  '९८७६५४३२१०',
  'İıŞş',
  'ß'.repeat(50),
];

/** Strings of every kind: short random ones (any code unit, lone surrogates too), the nasty ones, and long ones. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom('a', '\u00e9', '\ud83d\ude00', '\u0000', '\u202e'),
        fc.integer({ min: 1000, max: 200_000 }),
      )
      .map(([unit, times]) => unit.repeat(times)),
    weight: 1,
  },
);

/** A value of a type other than the one a schema asks for is among these. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0, 2 ** 53 + 1, 1e308, -1e308, [], {}, [[]], [null], ''),
  anyString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(new Raw('1e400'), new Raw('-1e400'), new Raw('123456789012345678901234567890'), new Raw('1E-400')),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A value nested `depth` levels deep (arrays or objects), as raw text so no serializer recurses through it. */
export const deepNesting: fc.Arbitrary<Raw> = fc
  .tuple(fc.integer({ min: 33, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? new Raw('['.repeat(depth) + '1' + ']'.repeat(depth))
      : new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  );

type Context = { root: Schema; hints: Hints; depth: number };

function resolve(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const target = (current.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((node, part) => node?.[part], root);
    if (!target) throw new Error(`unresolved ${current.$ref}`);
    current = target;
  }
  return current;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? minLength + 24, minLength + 24);
  if (schema.format === 'date')
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`);
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    const matching = fc.stringMatching(new RegExp(schema.pattern), { maxLength: Math.max(maxLength, 1) });
    return matching.filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min =
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-9) : -1000);
  const max =
    schema.maximum ??
    (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-9) : 1_000_000);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function objectOf(schema: Schema, ctx: Context): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(schema.required ?? []);
  const parts = Object.entries(properties).map(([name, property]) => {
    const own = valueOf(property, { ...ctx, depth: ctx.depth + 1 });
    const hinted = ctx.hints[name];
    const value =
      hinted && hinted.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...hinted), weight: 3 }, own) : own;
    return required.has(name)
      ? value.map((v) => [[name, v]] as [string, unknown][])
      : fc.option(value, { freq: 2 }).map((v) => (v === null ? [] : ([[name, v]] as [string, unknown][])));
  });
  const extra =
    schema.additionalProperties === true || schema.patternProperties !== undefined
      ? fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })
      : fc.constant({});
  return fc.tuple(fc.tuple(...parts), extra).map(([entries, more]) => {
    let value: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(more)) value = withKey(value, key, v);
    for (const [key, v] of entries.flat()) value = withKey(value, key, v);
    return value;
  });
}

/** A value `schema` accepts, or nearly: hints stand in for what the schema cannot say (an id that exists). */
function valueOf(input: Schema, ctx: Context): fc.Arbitrary<unknown> {
  const schema = resolve(input, ctx.root);
  if (ctx.depth > 8) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => valueOf(alternative, ctx)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return objectOf(schema, ctx);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const items = schema.items
        ? valueOf(schema.items as Schema, { ...ctx, depth: ctx.depth + 1 })
        : fc.jsonValue({ maxDepth: 1 });
      return fc.array(items, { minLength, maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3) });
    }
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return schema.properties ? objectOf(schema, ctx) : fc.jsonValue({ maxDepth: 2 });
  }
}

export const valid = (schema: Schema, root: Schema, hints: Hints = {}): fc.Arbitrary<unknown> =>
  valueOf(schema, { root, hints, depth: 0 });

/** Where a value can be changed: its own root (`[]`) and every key or index below it. */
function pathsOf(
  value: unknown,
  at: (string | number)[] = [],
  found: (string | number)[][] = [],
): (string | number)[][] {
  found.push(at);
  if (found.length > 200) return found;
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...at, i], found));
  else if (typeof value === 'object' && value !== null && !(value instanceof Raw))
    for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...at, key], found);
  return found;
}

/** `value` with what is at `path` replaced by `change(old)` (the root when `path` is empty); `undefined` removes it. */
function changeAt(value: unknown, path: readonly (string | number)[], change: (old: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = changeAt(copy[head as number], rest, change);
    if (next === undefined && rest.length === 0) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const object = value as Record<string, unknown>;
  const next = changeAt(object[head as string], rest, change);
  if (next === undefined && rest.length === 0)
    return Object.keys(object)
      .filter((key) => key !== head)
      .reduce<Record<string, unknown>>((acc, key) => withKey(acc, key, object[key]), {});
  return withKey(object, head as string, next);
}

type Mutation = (value: unknown, path: (string | number)[]) => fc.Arbitrary<unknown>;

const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

/** The ways one place of a value is broken. */
const MUTATIONS: readonly Mutation[] = [
  // Another type.
  (value, path) => anyValue.map((other) => changeAt(value, path, () => other)),
  // A string of the nasty kind.
  (value, path) => anyString.map((text) => changeAt(value, path, () => text)),
  // Gone (a required field, an item).
  (value, path) => fc.constant(path.length === 0 ? undefined : changeAt(value, path, () => undefined)),
  // A key added where an object is (or the object replaced by one with that key).
  (value, path) =>
    fc
      .tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 20 }), anyString), anyValue)
      .map(([key, extra]) =>
        changeAt(value, path, (old) =>
          withKey(
            typeof old === 'object' && old !== null && !Array.isArray(old) && !(old instanceof Raw) ? old : {},
            key,
            extra,
          ),
        ),
      ),
  // Nested too deep.
  (value, path) => deepNesting.map((deep) => changeAt(value, path, () => deep)),
];

/** `valid` values broken in one to three places. */
export function malformed(schema: Schema, root: Schema, hints: Hints = {}): fc.Arbitrary<unknown> {
  const breakOnce = (value: unknown): fc.Arbitrary<unknown> => {
    const paths = pathsOf(value);
    return fc
      .tuple(fc.integer({ min: 0, max: paths.length - 1 }), fc.integer({ min: 0, max: MUTATIONS.length - 1 }))
      .chain(([p, m]) => MUTATIONS[m]!(value, paths[p]!));
  };
  return valid(schema, root, hints).chain((value) =>
    fc.integer({ min: 1, max: 3 }).chain((times) => {
      let broken: fc.Arbitrary<unknown> = breakOnce(value);
      for (let i = 1; i < times; i++) broken = broken.chain((v) => (v === undefined ? fc.constant(v) : breakOnce(v)));
      return broken;
    }),
  );
}

/** JSON texts that are not JSON, or not what any schema takes at the top. */
export const rawJunk: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '}',
    '{"a":}',
    '{"a":1,}',
    "{'a':1}",
    'nul',
    'null',
    'true',
    '0',
    '-0',
    '1e400',
    '"text"',
    '[]',
    '{}',
    '[{}]',
    'NaN',
    '\u0000',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":1,"a":2}',
    '{"a":"\\u0000"}',
    '/* comment */ {}',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  deepNesting.map((raw) => raw.text),
);
