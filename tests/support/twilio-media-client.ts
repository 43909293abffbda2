/**
 * A stand-in for Twilio's side of a Media Stream (`<Connect><Stream>`): it opens the WebSocket as
 * Twilio does (with X-Twilio-Signature over the stream's URL), sends `connected` and `start`, "plays"
 * the audio it is sent in real time (or `speed` times faster; Infinity: at once), echoing each mark
 * when the audio before it has played, drops what it holds on `clear` (echoing the marks dropped, as
 * Twilio does), and sends `stop` when asked. Everything the service sent is kept, in order.
 */
import { createHmac } from 'node:crypto';
import WebSocket from 'ws';

/** What the service sent, with when it arrived (ms after `start` was sent). */
export type Sent =
  | { event: 'media'; payload: Buffer; atMs: number }
  | { event: 'mark'; name: string; atMs: number }
  | { event: 'clear'; atMs: number }
  | { event: 'other'; message: unknown; atMs: number };

/** μ-law at 8,000 Hz: one byte a sample. */
const BYTES_PER_MS = 8;

/** X-Twilio-Signature of a GET of `url` (no parameters): base64 HMAC-SHA1 keyed with the auth token. */
export const signatureOf = (authToken: string, url: string) =>
  createHmac('sha1', authToken).update(url).digest('base64');

export class TwilioMediaClient {
  readonly sent: Sent[] = [];
  /** The marks echoed, in order, and whether each was played (false: dropped by `clear`). */
  readonly echoed: { name: string; played: boolean }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly streamSid = `MZ${Math.random().toString(16).slice(2).padEnd(32, '0')}`;
  private startedAt = 0;
  private sequence = 0;
  private queue: ({ media: Buffer } | { mark: string })[] = [];
  private playing = false;
  private clock = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    private readonly speed: number,
  ) {
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        this.notify();
        resolve({ code, reason: reason.toString() });
      }),
    );
    ws.on('message', (raw) => this.receive(JSON.parse(raw.toString())));
  }

  /** Opens `base`'s media stream path with a signature header (none when null); rejects when refused at the handshake. */
  static async connect(url: string, options: { signature: string | null; speed?: number }): Promise<TwilioMediaClient> {
    const ws = new WebSocket(url, {
      headers: options.signature === null ? {} : { 'X-Twilio-Signature': options.signature },
    });
    const client = new TwilioMediaClient(ws, options.speed ?? 1);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return client;
  }

  private send(message: Record<string, unknown>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.sequence += 1;
    this.ws.send(JSON.stringify({ ...message, sequenceNumber: String(this.sequence) }));
  }

  /** `connected`, then `start` naming the call (our `callId` parameter) and the account. */
  start(call: { callId: string; accountSid: string }): void {
    this.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    this.startedAt = performance.now();
    this.send({
      event: 'start',
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: call.accountSid,
        callSid: `CA${'0'.repeat(32)}`,
        tracks: ['inbound'],
        customParameters: { callId: call.callId },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    // The caller's audio, as Twilio sends it all along (silence here).
    this.send({
      event: 'media',
      streamSid: this.streamSid,
      media: { track: 'inbound', chunk: '1', timestamp: '0', payload: Buffer.alloc(160, 0xff).toString('base64') },
    });
  }

  /** The call ended: `stop`, then Twilio closes the socket. */
  stop(): void {
    this.stopped = true;
    this.send({ event: 'stop', streamSid: this.streamSid, stop: { accountSid: 'AC', callSid: 'CA' } });
  }

  private elapsed(): number {
    return performance.now() - this.startedAt;
  }

  private receive(message: { event: string; media?: { payload: string }; mark?: { name: string } }): void {
    const atMs = this.elapsed();
    if (message.event === 'media') {
      const payload = Buffer.from(message.media!.payload, 'base64');
      this.sent.push({ event: 'media', payload, atMs });
      this.queue.push({ media: payload });
    } else if (message.event === 'mark') {
      this.sent.push({ event: 'mark', name: message.mark!.name, atMs });
      this.queue.push({ mark: message.mark!.name });
    } else if (message.event === 'clear') {
      this.sent.push({ event: 'clear', atMs });
      const dropped = this.queue.filter((item): item is { mark: string } => 'mark' in item);
      this.queue = [];
      for (const { mark } of dropped) this.echo(mark, false);
    } else this.sent.push({ event: 'other', message, atMs });
    this.notify();
    void this.play();
  }

  /** A mark played is echoed until the stream stops; one dropped by `clear` is echoed whenever the socket is open. */
  private echo(name: string, played: boolean): void {
    this.echoed.push({ name, played });
    if (!played || !this.stopped) this.send({ event: 'mark', streamSid: this.streamSid, mark: { name } });
    this.notify();
  }

  /** Plays what is queued: each frame takes its duration (divided by `speed`), a mark is echoed when reached. */
  private async play(): Promise<void> {
    if (this.playing) return;
    this.playing = true;
    while (this.queue.length > 0 && !this.stopped) {
      const item = this.queue.shift()!;
      if ('mark' in item) {
        this.echo(item.mark, true);
        continue;
      }
      if (!Number.isFinite(this.speed)) continue;
      this.clock = Math.max(this.clock, performance.now()) + item.media.length / BYTES_PER_MS / this.speed;
      const wait = this.clock - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.playing = false;
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once `condition` holds (looked at after each message, echo and close). */
  async until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!condition()) {
      if (performance.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  media(): Buffer[] {
    return this.sent.flatMap((s) => (s.event === 'media' ? [s.payload] : []));
  }

  /** The audio of each line: the frames sent before each mark, after the one before. */
  lines(): { mark: string; audio: Buffer }[] {
    const lines: { mark: string; audio: Buffer }[] = [];
    let frames: Buffer[] = [];
    for (const s of this.sent) {
      if (s.event === 'media') frames.push(s.payload);
      if (s.event === 'mark') {
        lines.push({ mark: s.name, audio: Buffer.concat(frames) });
        frames = [];
      }
    }
    return lines;
  }

  firstMediaMs(): number | undefined {
    return this.sent.find((s) => s.event === 'media')?.atMs;
  }

  close(): void {
    this.ws.close();
  }
}
