/**
 * The speech WebSocket fuzzed from /asyncapi.json: every message type a client sends, near-valid and
 * malformed (from the same schemas), and frames that are not messages at all (junk text, binary,
 * text that is not UTF-8, more than the 1 MiB a message may hold), after handshakes with every kind of
 * bad token. Each message must be answered by messages the document describes (a request's audio and
 * its end, `pong`, or an `error` with a documented code), or the connection closed with a code the
 * document lists; never silence, never a crash. Afterwards the socket and HTTP still serve.
 *
 * Short in `npm run check`; `npm run fuzz` runs it long (settings.ts: FUZZ_SEED, FUZZ_RUNS, FUZZ_BUDGET_MS).
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import Ajv from 'ajv';
import fc from 'fast-check';
import WebSocket from 'ws';
import { leaksIn } from '../../support/fuzz/answers';
import { malformed, rawJunk, toJson, valid, type Hints, type Schema } from '../../support/fuzz/json-arbitrary';
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
import { startTestService, type TestService } from '../../support/test-service';

jest.setTimeout(FUZZ_BUDGET_MS + 120_000);

const MAX_MESSAGE_BYTES = 1 << 20;

/** What one case sends: a text frame (its bytes, valid UTF-8 or not) or a binary one. */
type Frame = { data: Buffer; binary: boolean; shown: string };

type Received = { messages: { text: string; value: any }[]; closed: { code: number; reason: string } | null };

/** A connection that records what the service sends, and resolves a waiter when what it waits for came. */
class Connection {
  readonly received: Received = { messages: [], closed: null };
  private waiter: (() => void) | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const text = data.toString();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      this.received.messages.push({ text: isBinary ? `<binary ${text.length}>` : text, value });
      this.waiter?.();
    });
    ws.on('close', (code, reason) => {
      this.received.closed = { code, reason: reason.toString() };
      this.waiter?.();
    });
    ws.on('error', () => undefined);
  }

  static open(url: string, token: string): Promise<Connection> {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const connection = new Connection(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(connection));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Resolves once `done` holds of what was received, or the connection closed; rejects after the deadline. */
  until(done: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (done() || this.received.closed) {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = check;
      check();
    });
  }
}

/** The text frame of a value, or of bytes that are not UTF-8 at all. */
const textFrame = (text: string): Frame => ({ data: Buffer.from(text, 'utf8'), binary: false, shown: shown(text) });

function frameArbitrary(schema: Schema | null, root: Schema, hints: Hints): fc.Arbitrary<Frame> {
  if (schema)
    return fc.oneof(
      { arbitrary: valid(schema, root, hints).map((v) => textFrame(toJson(v))), weight: 5 },
      { arbitrary: malformed(schema, root, hints).map((v) => textFrame(v === undefined ? '' : toJson(v))), weight: 5 },
    );
  // Frames that are no message of any type.
  return fc.oneof(
    { arbitrary: rawJunk.map(textFrame), weight: 5 },
    {
      arbitrary: fc.constantFrom('{"type":"ping"}', '{"type":"speech"}', '[1]').map((text) => ({
        data: Buffer.from(text),
        binary: true,
        shown: `binary ${text}`,
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          Buffer.from([0xff, 0xfe, 0xfd]),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.concat([Buffer.from('{"type":"ping","x":"'), Buffer.from([0xc3]), Buffer.from('"}')]),
          Buffer.from([0xc0, 0xaf]),
        )
        .map((data) => ({ data, binary: false, shown: `text that is not UTF-8: ${data.toString('hex')}` })),
      weight: 1,
    },
    {
      arbitrary: fc.integer({ min: MAX_MESSAGE_BYTES + 1, max: MAX_MESSAGE_BYTES + 4096 }).map((n) => ({
        data: Buffer.from(`{"type":"speech","text":"${'a'.repeat(n)}"}`),
        binary: false,
        shown: `a message of ${n} bytes`,
      })),
      weight: 1,
    },
  );
}

describe('fuzzing the speech WebSocket of /asyncapi.json', () => {
  let t: TestService;
  let credentials: Credentials;

  beforeAll(async () => {
    t = await startTestService({ env: { SERVICES: 'speech,agent', MAX_SPEECH_CHARS: '80' } });
    const a = await t.newOrganization('collection', { credits: 1_000_000, concurrencyLimit: 4 });
    const b = await t.newOrganization('collection');
    credentials = await credentialsFor(a, b.token);
  });
  afterAll(() => t.stop());

  it('refuses every bad token at the handshake, in the envelope, and opens no socket', async () => {
    const handshake = (path: string, authorization: string | null) =>
      new Promise<{ status: number; body: string; nosniff: boolean }>((resolve, reject) => {
        const req = request(`${t.url}${path}`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': randomBytes(16).toString('base64'),
            ...(authorization !== null && { authorization }),
          },
        });
        req.once('upgrade', (_res, socket) => {
          socket.destroy();
          resolve({ status: 101, body: '', nosniff: false });
        });
        req.once('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body,
              nosniff: res.headers['x-content-type-options'] === 'nosniff',
            }),
          );
        });
        req.once('error', reject);
        req.end();
      });
    const kinds = Object.keys(credentials) as TokenKind[];
    for (const kind of kinds) {
      const token = credentials[kind];
      let expected = REFUSED_TOKENS.has(kind) ? 401 : 101;
      if (kind === 'huge') expected = 431;
      if (kind === 'noScopes') expected = 403;
      for (const [how, path, authorization] of [
        ['header', '/api/v1/get_speech', token === null ? null : `Bearer ${token}`],
        ['query', `/api/v1/get_speech${token === null ? '' : `?token=${encodeURIComponent(token)}`}`, null],
      ] as const) {
        const answer = await handshake(path, authorization);
        expect({ kind, how, status: answer.status }).toEqual({ kind, how, status: expected });
        if (answer.status === 101) continue;
        const body = JSON.parse(answer.body);
        expect({ kind, how, success: body.success, message: typeof body.message, nosniff: answer.nosniff }).toEqual({
          kind,
          how,
          success: false,
          message: 'string',
          nosniff: true,
        });
        expect(leaksIn(answer.body)).toEqual([]);
      }
    }
  });

  it('answers every message with documented messages or closes with a documented code, and stays healthy', async () => {
    const doc = (await t.request('GET', '/asyncapi.json')).body;
    const schemas = doc.components.schemas as Record<string, Schema>;
    const messageOf = (ref: string) => doc.components.messages[ref.split('/').pop()!];
    const byAction = (action: string) =>
      Object.values<any>(doc.operations)
        .filter((op) => op.action === action)
        .map((op) => messageOf(op.messages[0].$ref));
    const clientMessages = byAction('receive');
    const serverMessages = byAction('send');
    expect(clientMessages.map((m) => m.name).sort()).toEqual(['cancel', 'ping', 'speech']);
    const ajv = new Ajv({ strict: false });
    const serverSchemas = serverMessages.map((m) => ({
      name: m.name as string,
      check: ajv.compile(schemas[m.payload.$ref.split('/').pop()]!),
    }));
    const closeCodes = new Set(Object.keys(doc.channels.speech['x-close-codes']).map(Number));
    expect(closeCodes.has(1009)).toBe(true);

    const voices = (
      (await t.request('GET', '/api/v1/get_voices', { token: credentials.valid })).body as { id: string }[]
    ).map((v) => v.id);
    const hints: Hints = {
      voice_id: voices,
      language: ['hi', 'en', 'ta'],
      text: ['Namaste.', 'Hello there.'],
      request_id: ['r-1', 'r-2', ''],
    };
    const kinds = [
      ...clientMessages.map((m) => ({ name: m.name as string, schema: schemas[m.payload.$ref.split('/').pop()]! })),
      { name: 'frames', schema: null },
    ].filter((kind) => FUZZ_ONLY.test(kind.name));
    process.stdout.write(
      `WebSocket fuzz: seed ${FUZZ_SEED} (FUZZ_SEED=${FUZZ_SEED} repeats it), ${FUZZ_RUNS} cases per message type\n`,
    );

    let connection = await Connection.open(t.url, credentials.valid!);
    const started = Date.now();
    const counts: Record<string, number> = {};
    const failures: string[] = [];
    const budgetMs = Math.floor(FUZZ_BUDGET_MS / 4);
    for (const [i, kind] of kinds.entries()) {
      const left = budgetMs - (Date.now() - started);
      const details = await fc.check(
        fc.asyncProperty(frameArbitrary(kind.schema, doc, hints), async (frame) => {
          if (connection.received.closed) connection = await Connection.open(t.url, credentials.valid!);
          const from = connection.received.messages.length;
          const answered = () =>
            connection.received.messages.slice(from).some((m) => ['error', 'pong', 'complete'].includes(m.value?.type));
          connection.ws.send(frame.data, { binary: frame.binary });
          try {
            await connection.until(answered, ANSWER_TIMEOUT_MS);
          } catch (error) {
            throw new Error(`${String(error)} to ${frame.shown}`);
          }
          const problems: string[] = [];
          for (const message of connection.received.messages.slice(from)) {
            const type = message.value?.type;
            const schema = serverSchemas.find((s) => s.name === type);
            if (!schema) problems.push(`a message the document does not describe: ${shown(message.text)}`);
            else if (!schema.check(message.value))
              problems.push(`a ${type} message unlike its schema: ${shown(message.text)}`);
            problems.push(...leaksIn(message.text));
          }
          const closed = connection.received.closed;
          if (closed && !closeCodes.has(closed.code)) problems.push(`closed with ${closed.code} "${closed.reason}"`);
          if (closed && closed.reason === '') problems.push(`closed with ${closed.code} and no reason`);
          if (FUZZ_VERBOSE)
            process.stdout.write(
              `${kind.name} ${frame.shown}\n  -> ${shown(connection.received.messages.slice(from).map((m) => m.value?.type))} ${shown(closed)}\n`,
            );
          if (problems.length > 0) throw new Error(`${problems.join('; ')} (sent ${frame.shown})`);
        }),
        {
          seed: seedOf(kind.name),
          numRuns: FUZZ_RUNS,
          endOnFailure: !FUZZ_SHRINK,
          interruptAfterTimeLimit: Math.max(1000, Math.floor(left / (kinds.length - i))),
        },
      );
      counts[kind.name] = details.numRuns;
      if (details.failed)
        failures.push(`${kind.name} (seed ${details.seed}): ${shown(String(details.errorInstance), 1500)}`);
    }
    connection.ws.terminate();
    process.stdout.write(
      `WebSocket fuzz: ${Object.entries(counts)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')} cases in ${Date.now() - started} ms\n`,
    );
    expect(failures).toEqual([]);
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);

    // Still serving: a new socket speaks, and HTTP answers.
    const after = await Connection.open(t.url, credentials.valid!);
    after.ws.send(JSON.stringify({ type: 'speech', request_id: 'after', text: 'Still here.', voice_id: voices[0] }));
    await after.until(
      () => after.received.messages.some((m) => m.value?.request_id === 'after' && m.value?.type !== 'audio_chunk'),
      20_000,
    );
    expect(
      after.received.messages.find((m) => m.value?.request_id === 'after' && m.value?.type !== 'audio_chunk')?.value
        .type,
    ).toBe('complete');
    after.ws.terminate();
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });
});
