/**
 * Every validated field of every route of the OpenAPI document, sent a value far larger than an error may
 * be: nothing answers 5xx, and every error stays under 4 KB (a value an error echoes is cut to 40
 * characters, docs/api-decisions.md). Bodies: each field of the walk's valid request (tests/support/
 * route-walk.ts), at any depth, and an unknown key of that size; paths: each parameter; queries: each
 * documented parameter of the reads.
 */
import { SIGNED_WEBHOOKS, startWalk, WRITES, type Walk } from '../../support/route-walk';

jest.setTimeout(120_000);

const MAX_ERROR_BYTES = 4096;
const HUGE = 'x'.repeat(64 * 1024);
/** Path and query values stay under Node's 16 KB limit on a request's head. */
const LONG = 'y'.repeat(6 * 1024);

type Operation = { parameters?: { name: string; in: string }[]; requestBody?: unknown };
type Path = (string | number)[];

/** Every place in `value` a client sets, down to `depth` levels: the first item stands for an array's. */
function fieldsOf(value: unknown, depth = 4, at: Path = []): Path[] {
  if (depth === 0 || value === null || typeof value !== 'object') return [];
  const children: [string | number, unknown][] = Array.isArray(value)
    ? value.slice(0, 1).map((v) => [0, v])
    : Object.entries(value);
  return children.flatMap(([key, child]) => [[...at, key], ...fieldsOf(child, depth - 1, [...at, key])]);
}

function withValueAt(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

/** `path` with its parameter segments (those of `template`, `{name}`) replaced by `value`. */
const withParameters = (template: string, path: string, value: string) => {
  const names = template.split('/');
  return path
    .split('/')
    .map((segment, i) => (/^\{.+\}$/.test(names[i] ?? '') ? value : segment))
    .join('/');
};

describe('errors stay small, whatever size the value they refuse', () => {
  let walk: Walk;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    walk = await startWalk();
    paths = (await walk.t.request('GET', '/openapi.json')).body.paths;
  });
  afterAll(() => walk?.stop());

  type Sent = { route: string; field: string; status: number; bytes: number };
  const tooLarge = (sent: Sent[]) =>
    sent.filter((s) => s.status >= 500 || (s.status >= 400 && s.bytes >= MAX_ERROR_BYTES));

  it('answers a huge value in any field of any write route with a short error', async () => {
    const { t, f, tokenOf } = walk;
    const sent: Sent[] = [];
    const send = async (route: string, field: string, method: string, path: string, token: string, body?: unknown) => {
      const reply = await t.request(method, path, { token, ...(body !== undefined && { body }) });
      sent.push({ route, field, status: reply.status, bytes: Buffer.byteLength(reply.text) });
    };
    const writes = Object.entries(paths).flatMap(([template, ops]) =>
      Object.keys(ops)
        .filter((method) => method !== 'get' && !SIGNED_WEBHOOKS.includes(`${method} ${template}`))
        .map((method) => ({ template, method, key: `${method} ${template}` })),
    );
    expect(writes.map((w) => w.key).filter((key) => !(key in WRITES))).toEqual([]);
    // Deletions last, as in the walk: a route before them acts on what they delete.
    writes.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { template, method, key } of writes) {
      const write = WRITES[key]!(f);
      const token = tokenOf(write);
      const verb = method.toUpperCase();
      if (template.includes('{'))
        await send(key, 'path', verb, withParameters(template, write.path, LONG), token, write.body);
      if (write.body === undefined) continue;
      for (const field of fieldsOf(write.body))
        await send(key, field.join('.'), verb, write.path, token, withValueAt(write.body, field, HUGE));
      const unknownAt = Array.isArray(write.body) ? [0, HUGE] : [HUGE];
      await send(key, 'an unknown key', verb, write.path, token, withValueAt(write.body, unknownAt, 1));
    }
    expect(sent.length).toBeGreaterThan(150);
    expect(tooLarge(sent)).toEqual([]);
  });

  it('answers a long value in any parameter of any read with a short error', async () => {
    const { t, f } = walk;
    const sent: Sent[] = [];
    for (const [template, ops] of Object.entries(paths)) {
      const read = ops.get;
      if (!read) continue;
      const token = template.startsWith('/admin/') ? t.adminToken : f.token;
      const path = template.replace(/\{[^}]+\}/g, 'unknown');
      const send = async (field: string, target: string) => {
        const reply = await t.request('GET', target, { token });
        sent.push({ route: `get ${template}`, field, status: reply.status, bytes: Buffer.byteLength(reply.text) });
      };
      if (template.includes('{')) await send('path', template.replace(/\{[^}]+\}/g, LONG));
      for (const parameter of read.parameters ?? [])
        if (parameter.in === 'query') await send(parameter.name, `${path}?${parameter.name}=${LONG}`);
    }
    expect(sent.length).toBeGreaterThan(40);
    expect(tooLarge(sent)).toEqual([]);
  });
});
