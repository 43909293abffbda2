/** Helpers for the speech suites: a WebSocket client that records messages, and WAV/PCM decoding. */
import WebSocket from 'ws';
import type { AudioChunk, SpeechEngine, SynthesisOptions } from '../../application/ports/speech-engine';
import { nativeEngineMissing, publicVoices } from '../../infrastructure/speech';

export type Message = { type: string; [key: string]: any };

export class SpeechClient {
  readonly messages: Message[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as Message;
      this.messages.push(message);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(message)) return true;
        w.resolve(message);
        return false;
      });
    });
  }

  static async connect(url: string, options: { token?: string; query?: string } = {}): Promise<SpeechClient> {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech${options.query ?? ''}`, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    });
    const client = new SpeechClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { statusCode: res.statusCode })),
      );
    });
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message (already received or coming) that matches. */
  next(match: (m: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching message in ${timeoutMs} ms; got ${JSON.stringify(this.messages.map((m) => m.type))}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Waits for the request's `complete` or `error` and returns everything sent for it. */
  async finished(requestId: string): Promise<{ end: Message; chunks: Message[] }> {
    const end = await this.next((m) => m.request_id === requestId && (m.type === 'complete' || m.type === 'error'));
    return { end, chunks: this.messages.filter((m) => m.type === 'audio_chunk' && m.request_id === requestId) };
  }

  close(): void {
    this.ws.close();
  }
}

/** Handshake answer for a connection that must be refused. */
export function refusedStatus(url: string, headers: Record<string, string> = {}, query = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/get_speech${query}`, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => reject(new Error('connection was accepted')));
    ws.once('error', () => {});
  });
}

export const int16 = (bytes: Buffer): Int16Array =>
  new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** The two eSpeak NG builds the engine suites run on; the native one only where Debian's library is installed. */
export const speechEngineKinds = ['js', 'native'] as const;

/** `describe` for an engine kind, skipped with a printed reason when that engine cannot run here. */
export const describeEngine = (kind: (typeof speechEngineKinds)[number]): jest.Describe => {
  const missing = kind === 'native' ? nativeEngineMissing() : undefined;
  if (!missing) return describe;
  console.log(`skipping the native speech engine suites: ${missing}`);
  return describe.skip;
};

/** An engine that never stops speaking: 100 ms of audio every 20 ms, one character each, until aborted. */
export const endlessEngine: SpeechEngine = {
  voices: () => publicVoices,
  synthesize: (_request, options?: SynthesisOptions) =>
    (async function* (): AsyncGenerator<AudioChunk> {
      for (let spoken = 1; !options?.signal?.aborted; spoken++) {
        await new Promise((r) => setTimeout(r, 20));
        yield { pcm: new Int16Array(2400).fill(500), charactersSpoken: spoken };
      }
    })(),
  warm: async () => {},
  close: async () => {},
};
