/**
 * The door's check of every JSON body (api/http/json-shape.ts): a body without problems is answered by
 * one walk that builds no path; a body with one is walked again to say where. Both walks must agree on
 * whether there is a problem, wherever in the body it hides.
 */
import { jsonShapeProblems, MAX_JSON_DEPTH } from '../../../api/http/json-shape';

const record = (i: number) => ({ loan_id: `L${i}`, first_name: 'Asha', phone_number: '+919812345678', loan_amount: 1 });
const bulk = (records: unknown[]) => JSON.parse(JSON.stringify({ campaignId: 'c1', records })) as unknown;

describe('jsonShapeProblems', () => {
  it('finds nothing in a large body without problems (Unicode beyond the BMP included)', () => {
    const records: unknown[] = Array.from({ length: 10_000 }, (_, i) => record(i));
    records.push({ loan_id: 'L-emoji', notes: 'नमस्ते 🙏', nested: { list: [1, 'x', null, true] } });
    expect(jsonShapeProblems(bulk(records))).toEqual([]);
  });

  it('names a lone surrogate in a value or a key deep in a large body', () => {
    const records: unknown[] = Array.from({ length: 10_000 }, (_, i) => record(i));
    records[7_345] = { ...record(7_345), last_name: 'Patil\uD800' };
    expect(jsonShapeProblems(bulk(records))).toEqual([
      'records[7345].last_name is not valid Unicode (a lone surrogate)',
    ]);
    const key = { campaignId: 'c1', records: [record(0), { ['x\uDC00y']: 1 }] };
    expect(jsonShapeProblems(key)).toEqual(['records[1].x\uDC00y is not valid Unicode (a lone surrogate)']);
  });

  it('names a key that reaches a prototype, wherever it is', () => {
    const records: unknown[] = Array.from({ length: 2_000 }, (_, i) => record(i));
    const body = JSON.parse(JSON.stringify({ records }).replace('"loan_id":"L1999"', '"__proto__":{"admin":true}'));
    expect(jsonShapeProblems(body)).toEqual(['records[1999].__proto__ is not an allowed property name']);
    expect(jsonShapeProblems({ a: [{ constructor: 1 }] })).toEqual([
      'a[0].constructor is not an allowed property name',
    ]);
  });

  it('refuses a body nested deeper than the bound, and accepts one at it', () => {
    const nested = (levels: number) => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = i % 2 ? { v: value } : [value];
      return value;
    };
    expect(jsonShapeProblems(nested(MAX_JSON_DEPTH))).toEqual([]);
    expect(jsonShapeProblems(nested(MAX_JSON_DEPTH + 1))).toEqual([
      `body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`,
    ]);
  });
});
