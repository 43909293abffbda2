/**
 * Every operation of the OpenAPI document the service serves, fuzzed from the document itself: for each,
 * requests built from its method, path, parameters and body schema, mostly near-valid (so they reach the
 * handlers) and the rest malformed (wrong types, missing and extra keys, `__proto__`, NUL and lone
 * surrogates, bidirectional overrides, huge strings, deep nesting, JSON that is not JSON, other content
 * types, repeated and unknown query parameters, path traversal and broken percent-encoding in ids), under
 * good and bad tokens (expired, not valid yet, wrong signature, `alg: none`, another organization's).
 * Every answer must be one the document lists for the operation, in the error envelope when it is an
 * error, with the headers every answer carries and nothing of the service's inside; never a 500 of its
 * own, never later than the deadline. Afterwards the service is still healthy and serves.
 *
 * Short in `npm run check`; `npm run fuzz` runs it long (settings.ts: FUZZ_SEED, FUZZ_RUNS, FUZZ_BUDGET_MS).
 * The seed fixes the inputs; the service's state they meet depends on the cases before them too.
 */
import fc from 'fast-check';
import { problemsOf, type Expectation } from '../../support/fuzz/answers';
import {
  anyString,
  malformed,
  rawJunk,
  toJson,
  valid,
  type Hints,
  type Schema,
} from '../../support/fuzz/json-arbitrary';
import { encode, send, type RawAnswer, type RawRequest } from '../../support/fuzz/raw-http';
import {
  ANSWER_TIMEOUT_MS,
  FUZZ_BUDGET_MS,
  FUZZ_ONLY,
  FUZZ_RUNS,
  FUZZ_SEED,
  FUZZ_SHRINK,
  FUZZ_VERBOSE,
  seedOf,
  shown,
} from '../../support/fuzz/settings';
import { credentialsFor, REFUSED_TOKENS, type Credentials, type TokenKind } from '../../support/fuzz/tokens';
import { loanRecord } from '../../support/records';
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(FUZZ_BUDGET_MS + 120_000);

const CARRIER_SECRET = 'carrier-secret-for-the-fuzz';
const CHAT_SECRET = 'chat-secret-for-the-fuzz';
const UNEXPECTED = 'An unexpected error occurred';

type Operation = {
  key: string;
  method: string;
  path: string;
  security: 'organization' | 'admin' | 'secret' | 'public';
  query: string[];
  body: Schema | undefined;
  expectation: Expectation;
};

/** The kinds of ids a path names, by the path before the parameter. */
const PARAM_KINDS: readonly [RegExp, string][] = [
  [/\/dispositions\/groups\/\{id\}/, 'group'],
  [/\/dispositions\/\{id\}/, 'disposition'],
  [/\/agents\/\{id\}/, 'agent'],
  [/\/chat\/templates\/\{id\}/, 'template'],
  [/\/workflows\/\{id\}/, 'workflow'],
  [/\/deliveries\/\{id\}/, 'delivery'],
  [/\/campaigns\/\{id\}|\/campaigns\/\w+\/\{id\}|\{campaignId\}/, 'campaign'],
  [/\/organizations\/\{id\}/, 'organization'],
  [/\{provider\}/, 'provider'],
  [/\{call_id\}/, 'call'],
  [/\{message_id\}/, 'chat'],
  [/\{transcript_id\}/, 'transcript'],
  [/\{recording_id\}/, 'recording'],
  [/\{stream\}/, 'stream'],
];

/** Path segments that are not ids: traversal, encoded or not, and percent-encoding that does not decode. */
const HOSTILE_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2Fadmin%2Fv1',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%ED%A0%80',
  'a'.repeat(5000),
  '%F0%9F%98%80',
];

/** Values of query parameters: numbers in and out of every range, booleans, dates good and bad, and nasty strings. */
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '-1',
  '2',
  '10',
  '100',
  '101',
  '1000',
  '1000001',
  '1.5',
  '1e3',
  ' 1',
  '0x10',
  '9'.repeat(400),
  'true',
  'false',
  'yes',
  'null',
  'NaN',
  'Infinity',
  '2026-01-01',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00+05:30',
  '2026-13-45',
  '99999-01-01',
  'call',
  'chat',
  'Completed',
  'delivered',
  'IN',
  'US',
  'builtin',
  'hi',
  '98',
  'a,b,,c',
];
const UNKNOWN_PARAMS = [
  'foo',
  '__proto__',
  'constructor',
  'toString',
  'page[]',
  'limit[a]',
  'a'.repeat(300),
  '%zz',
  '',
];

type Fixture = {
  ids: Record<string, { own: string[]; others: string[] }>;
  hints: Hints;
  credentials: Credentials;
  adminToken: string;
};

type Case = {
  token: TokenKind | 'admin' | 'secret' | 'wrongSecret';
  request: RawRequest;
  /** The body as sent, for the report. */
  bodyText?: string;
};

/** The kind of route by the security scheme the document names for it. */
const SECURITY_OF: Record<string, Operation['security']> = {
  bearerAuth: 'organization',
  adminToken: 'admin',
  providerSecret: 'secret',
};

function operationsOf(doc: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths))
    for (const [method, op] of Object.entries<any>(methods)) {
      const scheme = op.security?.[0] ? Object.keys(op.security[0])[0] : undefined;
      const security = SECURITY_OF[scheme ?? ''] ?? 'public';
      const key = `${method.toUpperCase()} ${path}`;
      operations.push({
        key,
        method: method.toUpperCase(),
        path,
        security,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string),
        body: op.requestBody?.content?.['application/json']?.schema,
        expectation: {
          documented: new Set(Object.keys(op.responses).map(Number)),
          // The recording endpoints answer errors without `success` (spec 7.1), as the Error schema says.
          errorsWithoutSuccess: /\/recordings?\//.test(path),
          // Spec 4.11: an initiate request for which no customer could be reached answers 500 with the results.
          ownServerError: /^\/api\/v1\/initiate\//.test(path)
            ? (body) =>
                Array.isArray(body?.results?.errors ?? body?.results) ||
                (typeof body?.message === 'string' && body.message !== UNEXPECTED && 'results' in body)
            : undefined,
        },
      });
    }
  // Deletions last, so the other operations meet the fixture's resources before they are gone.
  return [...operations.filter((o) => o.method !== 'DELETE'), ...operations.filter((o) => o.method === 'DELETE')];
}

const kindOf = (path: string, param: string) =>
  PARAM_KINDS.find(([pattern]) => pattern.test(path.slice(0, path.indexOf(`{${param}}`) + param.length + 2)))?.[1] ??
  'unknown';

function paramArbitrary(kind: string, fixture: Fixture): fc.Arbitrary<string> {
  const ids = fixture.ids[kind] ?? { own: [], others: [] };
  const choices: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.uuid().map(encode), weight: 1 },
    { arbitrary: anyString.filter((s) => s.length > 0 && s.length < 3000).map(encode), weight: 2 },
    { arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS), weight: 2 },
  ];
  if (ids.own.length > 0) choices.push({ arbitrary: fc.constantFrom(...ids.own).map(encode), weight: 6 });
  if (ids.others.length > 0) choices.push({ arbitrary: fc.constantFrom(...ids.others).map(encode), weight: 2 });
  return fc.oneof(...choices);
}

function queryArbitrary(names: readonly string[], fixture: Fixture): fc.Arbitrary<string> {
  const fixtureValues = Object.values(fixture.ids).flatMap((ids) => [...ids.own, ...ids.others]);
  const value = fc.oneof(
    { arbitrary: fc.constantFrom(...QUERY_VALUES), weight: 4 },
    { arbitrary: fc.constantFrom(...fixtureValues), weight: 2 },
    { arbitrary: anyString.filter((s) => s.length < 3000), weight: 2 },
  );
  const encoded = fc.oneof(
    { arbitrary: value.map(encode), weight: 9 },
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%ED%A0%80'),
  );
  const name = fc.oneof(
    { arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constantFrom(...UNKNOWN_PARAMS), weight: 6 },
    { arbitrary: fc.constantFrom(...UNKNOWN_PARAMS).map(encode), weight: 1 },
  );
  return fc
    .array(fc.tuple(name, encoded), { maxLength: 4 })
    .chain((pairs) =>
      // Now and then one parameter twice.
      fc
        .integer({ min: 0, max: 5 })
        .map((repeat) => (repeat === 0 && pairs.length > 0 ? [...pairs, pairs[0]!] : pairs)),
    )
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`));
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  'application/vnd.fuzz+json',
  'application/json;;',
  '',
];

function bodyArbitrary(
  op: Operation,
  root: Schema,
  hints: Hints,
): fc.Arbitrary<{ text: string; contentType: string } | undefined> {
  const json = (text: fc.Arbitrary<string>) => text.map((t) => ({ text: t, contentType: 'application/json' }));
  const otherType = fc
    .tuple(fc.oneof(rawJunk, fc.constant('{"a":1}')), fc.constantFrom(...CONTENT_TYPES))
    .map(([text, contentType]) => ({ text, contentType }));
  const huge = fc
    .integer({ min: 1024 * 1024, max: 1.5 * 1024 * 1024 })
    .map((n) => ({ text: `{"name":"${'x'.repeat(n)}"}`, contentType: 'application/json' }));
  if (!op.body)
    return fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 8 },
      { arbitrary: json(rawJunk), weight: 1 },
      { arbitrary: otherType, weight: 1 },
    );
  const broken = malformed(op.body, root, hints).map((v) => (v === undefined ? '' : toJson(v)));
  return fc.oneof(
    { arbitrary: json(valid(op.body, root, hints).map(toJson)), weight: 5 },
    { arbitrary: json(broken), weight: 5 },
    { arbitrary: json(rawJunk), weight: 1 },
    { arbitrary: otherType, weight: 1 },
    { arbitrary: huge, weight: 1 },
  );
}

function tokenArbitrary(op: Operation): fc.Arbitrary<Case['token']> {
  const refused = fc.constantFrom<TokenKind>(...REFUSED_TOKENS, 'huge');
  switch (op.security) {
    case 'organization':
      return fc.oneof(
        { arbitrary: fc.constant<TokenKind>('valid'), weight: 10 },
        { arbitrary: fc.constantFrom<TokenKind>('otherOrganization', 'noScopes'), weight: 2 },
        { arbitrary: refused, weight: 3 },
      );
    case 'admin':
      return fc.oneof(
        { arbitrary: fc.constant<Case['token']>('admin'), weight: 8 },
        { arbitrary: fc.constantFrom<Case['token']>('valid', 'none', 'garbage', 'algNone'), weight: 2 },
      );
    case 'secret':
      return fc.oneof(
        { arbitrary: fc.constant<Case['token']>('secret'), weight: 8 },
        { arbitrary: fc.constantFrom<Case['token']>('wrongSecret', 'none', 'valid'), weight: 2 },
      );
    default:
      return fc.constantFrom<Case['token']>('none', 'valid', 'garbage');
  }
}

function caseArbitrary(op: Operation, root: Schema, fixture: Fixture): fc.Arbitrary<Case> {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const path = fc
    .tuple(...params.map((param) => paramArbitrary(kindOf(op.path, param), fixture)))
    .map((values) => params.reduce((p, param, i) => p.replace(`{${param}}`, values[i]!), op.path));
  const headers = fc.record(
    {
      'x-request-id': fc.oneof(
        fc.constantFrom('fuzz-1', 'x'.repeat(200), 'a b', '../..', '%00'),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      range: fc.constantFrom(
        'bytes=0-10',
        'bytes=-5',
        'bytes=100000000-',
        'bytes=5-1',
        'bytes=a-b',
        'bytes=0-1,2-3',
        'items=0-1',
        'bytes=0-',
      ),
      'last-event-id': fc.constantFrom('0', '-1', 'abc', '99999999999999999999', ''),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
      // Taken by the routes that create or start something: a key seen before answers the first answer
      // or 422, an empty or over-long one 400 (docs/api-decisions.md, "Idempotency-Key").
      'idempotency-key': fc.oneof(
        fc.constantFrom('fuzz-key', '', ' ', 'k'.repeat(255), 'k'.repeat(256)),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(tokenArbitrary(op), path, queryArbitrary(op.query, fixture), headers, bodyArbitrary(op, root, fixture.hints))
    .map(([token, p, query, extra, body]) => {
      const secrets: Record<string, string> = {
        admin: fixture.adminToken,
        secret: op.path.startsWith('/chat/') ? CHAT_SECRET : CARRIER_SECRET,
        wrongSecret: 'not-the-secret',
      };
      const authorization = secrets[token] ?? fixture.credentials[token as TokenKind];
      const headers: Record<string, string> = { ...(extra as Record<string, string>) };
      if (authorization !== null) headers.authorization = `Bearer ${authorization}`;
      if (body?.contentType) headers['content-type'] = body.contentType;
      return {
        token,
        request: { method: op.method, path: p + query, headers, ...(body && { body: Buffer.from(body.text, 'utf8') }) },
        bodyText: body?.text,
      };
    });
}

/** What a token of this kind must be answered on a route behind organization tokens, besides the route's own statuses. */
function tokenProblems(op: Operation, c: Case, answer: RawAnswer): string[] {
  if (op.security !== 'organization') return [];
  if (c.token === 'huge') return answer.status === 431 ? [] : [`a 20 kB token answered ${answer.status}, not 431`];
  // A request line and headers over Node's limit are refused (431) before any token is read.
  if (REFUSED_TOKENS.has(c.token as TokenKind) && answer.status !== 401 && answer.status !== 431)
    return [`a token that is ${c.token} answered ${answer.status}, not 401`];
  return [];
}

const report = (c: Case) =>
  `${c.request.method} ${shown(c.request.path, 200)} token=${c.token} headers=${shown(
    Object.fromEntries(Object.entries(c.request.headers).filter(([k]) => k !== 'authorization')),
  )} body=${shown(c.bodyText)}`;

describe('fuzzing every operation of /openapi.json', () => {
  let t: TestService;
  let fixture: Fixture;
  let org: { id: string; token: string };
  const logged: string[] = [];

  beforeAll(async () => {
    const record = (message: string, fields?: unknown) => void logged.push(`${message} ${shown(fields, 500)}`);
    t = await startTestService({
      env: {
        SERVICES: 'speech,agent',
        CARRIER_WEBHOOK_SECRET: CARRIER_SECRET,
        CHAT_WEBHOOK_SECRET: CHAT_SECRET,
        MAX_SPEECH_CHARS: '80',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_MAX_ATTEMPTS: '1',
        WEBHOOK_TIMEOUT_MS: '200',
      },
      overrides: { logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: record } },
    });
    fixture = await buildFixture(t);
    org = { id: fixture.ids.organization!.own[0]!, token: fixture.credentials.valid! };
  });
  afterAll(() => t.stop());

  it('answers every case with a documented status in the envelope, leaks nothing, and stays healthy', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const all = operationsOf(doc);
    expect(all.length).toBeGreaterThanOrEqual(70);
    const operations = all.filter((op) => FUZZ_ONLY.test(op.key));
    // Print the seed first, so a run cut short by a crash can still be repeated.
    process.stdout.write(
      `HTTP fuzz: seed ${FUZZ_SEED} (FUZZ_SEED=${FUZZ_SEED} repeats it), ${FUZZ_RUNS} cases per operation\n`,
    );

    const started = Date.now();
    const counts: Record<string, number> = {};
    /** Answers by class (2xx, 4xx...) per operation: a walk that never gets past validation proves little. */
    const classes: Record<string, Record<string, number>> = {};
    const failures: string[] = [];
    for (const [i, op] of operations.entries()) {
      const left = FUZZ_BUDGET_MS - (Date.now() - started);
      const budget = Math.max(250, Math.floor(left / (operations.length - i)));
      let ran = 0;
      const details = await fc.check(
        fc.asyncProperty(caseArbitrary(op, doc, fixture), async (c) => {
          ran++;
          let answer: RawAnswer;
          try {
            answer = await send(t.url, c.request, ANSWER_TIMEOUT_MS);
          } catch (error) {
            throw new Error(`no answer: ${String(error)}`);
          }
          if (FUZZ_VERBOSE) process.stdout.write(`${answer.status} ${report(c)}\n  -> ${shown(answer.text)}\n`);
          const kind = `${String(answer.status)[0]}xx`;
          (classes[op.key] ??= {})[kind] = (classes[op.key]?.[kind] ?? 0) + 1;
          const problems = [...problemsOf(answer, op.expectation), ...tokenProblems(op, c, answer)];
          if (problems.length > 0)
            throw new Error(`${problems.join('; ')} (answer ${answer.status}: ${shown(answer.text)})`);
        }),
        { seed: seedOf(op.key), numRuns: FUZZ_RUNS, endOnFailure: !FUZZ_SHRINK, interruptAfterTimeLimit: budget },
      );
      counts[op.key] = details.numRuns;
      if (details.failed)
        failures.push(
          `${op.key} (seed ${details.seed}, path ${details.counterexamplePath}): ${shown(String(details.errorInstance), 1500)}\n  case: ${
            details.counterexample ? report(details.counterexample[0] as Case) : '?'
          }`,
        );
      if (ran === 0) failures.push(`${op.key}: no case ran`);
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `HTTP fuzz: ${total} cases over ${operations.length} operations in ${Date.now() - started} ms\n` +
        Object.entries(counts)
          .map(
            ([key, n]) =>
              `  ${String(n).padStart(5)}  ${key.padEnd(52)} ${Object.entries(classes[key] ?? {})
                .sort()
                .map(([k, v]) => `${k} ${v}`)
                .join(', ')}`,
          )
          .join('\n') +
        '\n',
    );
    expect(failures).toEqual([]);
    expect(logged.filter((line) => line.startsWith('unhandled error'))).toEqual([]);

    // Still healthy, and still serving an ordinary request once the organization's rate limit has refilled:
    // the fuzzing may have spent its burst (at most 400 requests, refilled at 200 a second by default), and
    // a 429 then is the documented answer, not a fault.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    const ready = await t.request('GET', '/readyz');
    expect({ status: ready.status, ready: ready.body.status }).toEqual({ status: 200, ready: 'ready' });
    const created = await t.request('POST', '/api/v1/dispositions', {
      token: org.token,
      body: { name: `After ${Date.now()}` },
    });
    expect(created.status).toBe(201);
    expect((await t.request('GET', `/api/v1/dispositions/${created.body.data.id}`, { token: org.token })).status).toBe(
      200,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Two organizations with one of every resource, so that most cases reach a handler with something to find. */
async function buildFixture(t: TestService): Promise<Fixture> {
  const a = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 4 });
  const b = await t.newOrganization('lead_generation');
  const post = async (token: string, path: string, body: unknown) => {
    const reply = await t.request('POST', `/api/v1${path}`, { token, body });
    if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${reply.text}`);
    return reply.body.data;
  };
  const one = async (token: string) => {
    const disposition = (await post(token, '/dispositions', { name: 'Paid' })).id as string;
    const campaign = (
      await post(token, '/campaigns/create', { name: 'Fuzz', campaignType: token === a.token ? 'emi' : 'lead' })
    ).id as string;
    return {
      disposition,
      campaign,
      group: (await post(token, '/dispositions/groups/create', { name: 'G', dispositions: [disposition] }))
        .id as string,
      agent: (await post(token, '/agents', { name: 'Asha' })).id as string,
      template: (await post(token, '/chat/templates', { name: 'T', body: 'Hi {{first_name}}' })).id as string,
      workflow: (await post(token, '/workflows', { name: 'W', steps: [{ type: 'end' }] })).id as string,
    };
  };
  const mine = await one(a.token);
  const theirs = await one(b.token);
  for (let i = 0; i < 6; i++)
    await post(a.token, '/customers/add', { campaignId: mine.campaign, data: loanRecord(`L-${i}`) });
  // Numbers to call and message from.
  const offered = (await t.request('GET', '/api/v1/numbers/search?limit=100', { token: a.token })).body.data as {
    number: string;
    sms_enabled: boolean;
    voice_enabled: boolean;
  }[];
  const wanted = [
    offered.find((n) => n.sms_enabled && n.voice_enabled),
    offered.find((n) => n.voice_enabled && !n.sms_enabled),
  ];
  await post(
    a.token,
    '/numbers/buyNumbers',
    wanted.filter(Boolean).map((n) => ({ number: n!.number })),
  );
  await t.request('PUT', '/api/v1/webhooks', {
    token: a.token,
    body: { url: 'http://127.0.0.1:9/hook', enabled: true },
  });
  await post(a.token, `/initiate/${mine.campaign}/calls`, {
    agentId: mine.agent,
    dispositionId: mine.disposition,
  });
  await post(a.token, `/initiate/${mine.campaign}/chat`, { templateId: mine.template, limit: 1 });
  // A call with its recording (the simulated carrier fails some calls, which record nothing) and the chat.
  let logs: any[] = [];
  for (let i = 0; i < 300; i++) {
    logs = (await t.request('GET', '/api/v1/logs', { token: a.token })).body.data ?? [];
    const calls = logs.filter((l) => l.call_id);
    const ended = calls.length > 0 && calls.every((l) => ['Completed', 'No Contact', 'Failed'].includes(l.status));
    if ((ended || calls.some((l) => l.recording_id)) && logs.some((l) => l.message_id)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const call = logs.find((l) => l.call_id && l.recording_id) ?? logs.find((l) => l.call_id) ?? {};
  const chat = logs.find((l) => l.message_id) ?? {};
  const deliveries = (await t.request('GET', '/api/v1/webhooks/deliveries', { token: a.token })).body.data ?? [];
  const voices = ((await t.request('GET', '/api/v1/get_voices', { token: a.token })).body as { id: string }[]).map(
    (v) => v.id,
  );
  // Without these the walk would reach far fewer handlers: a fixture that lost one is a broken suite, not a pass.
  expect({ voices: voices.length > 0, call: !!call.call_id, chat: !!chat.message_id }).toEqual({
    voices: true,
    call: true,
    chat: true,
  });
  const ids = (own: (string | undefined)[], others: (string | undefined)[] = []) => ({
    own: own.filter((x): x is string => typeof x === 'string' && x !== ''),
    others: others.filter((x): x is string => typeof x === 'string' && x !== ''),
  });
  const fixture: Fixture = {
    ids: {
      disposition: ids([mine.disposition], [theirs.disposition]),
      group: ids([mine.group], [theirs.group]),
      agent: ids([mine.agent], [theirs.agent]),
      template: ids([mine.template], [theirs.template]),
      workflow: ids([mine.workflow], [theirs.workflow]),
      campaign: ids([mine.campaign], [theirs.campaign]),
      organization: ids([a.id], [b.id]),
      provider: ids(['builtin', 'acme']),
      call: ids([call.call_id]),
      chat: ids([chat.message_id]),
      transcript: ids([call.transcript_id]),
      recording: ids([call.recording_id]),
      delivery: ids(deliveries.map((d: { id?: string }) => d.id)),
      stream: ids(
        [`campaign-${mine.campaign}`, `dispositionCatalog-${a.id}`, `organization-${a.id}`, `call-${call.call_id}`],
        [`campaign-${theirs.campaign}`, `organization-${b.id}`],
      ),
    },
    hints: {
      campaignId: [mine.campaign, theirs.campaign],
      agentId: [mine.agent],
      dispositionId: [mine.disposition, mine.group],
      dispositionGroupId: [mine.group],
      templateId: [mine.template],
      workflowId: [mine.workflow],
      dispositions: [[mine.disposition], [mine.disposition, theirs.disposition]],
      voice_id: voices,
      voiceId: voices,
      language: ['hi', 'en', 'Hindi', 'ta'],
      text: ['Namaste.', 'Hello there, this is a test.'],
      loan_id: ['L-0', 'L-1', 'L-new'],
      provider: ['builtin'],
      number: wanted.filter(Boolean).map((n) => n!.number),
      callId: [call.call_id].filter(Boolean),
      messageId: [chat.message_id].filter(Boolean),
      url: ['http://127.0.0.1:9/hook', 'https://example.com/hook'],
      data: [loanRecord('L-data')],
      records: [[loanRecord('L-bulk-1'), loanRecord('L-bulk-2')]],
      limit: [1, 2],
    },
    credentials: await credentialsFor(a, b.token),
    adminToken: t.adminToken,
  };
  return fixture;
}
