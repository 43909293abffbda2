/**
 * One Media Stream: the agent speaking in a Twilio call (`<Connect><Stream>`), over the socket Twilio
 * opened. On `start` the stream is admitted (stream-admission.ts), then each line of the agent is
 * synthesized at 8,000 Hz and sent as it is produced, in 20 ms μ-law frames, with a mark after it.
 * A line counts as spoken when Twilio echoes its mark (its audio has played); when the last one comes
 * back the stream closes, which ends the TwiML's `<Connect>` and so the call.
 *
 * When the call ends first (`stop`, or the socket closes), the audio Twilio still holds is cleared,
 * synthesis stops, and the lines played so far are recorded as the call's transcript, once. Marks
 * that come back after that (Twilio echoes the marks of the audio a `clear` drops) are not counted.
 * The caller's audio (`media` from Twilio) is not listened to.
 */
import type { Logger } from '../../../application/ports/logger';
import { SpeechRequestError, type SpeechEngine } from '../../../application/ports/speech-engine';
import { MulawFrames } from './frames';
import { clearMessage, markMessage, mediaMessage, parseReceived, type StartMessage } from './messages';
import type { Admission, StreamScript } from './stream-admission';

/** The side of the WebSocket the stream writes to. */
export type StreamSocket = {
  send(text: string): void;
  close(code: number, reason: string): void;
  isOpen(): boolean;
};

export type MediaStreamDeps = {
  engine: SpeechEngine;
  admit: (start: StartMessage) => Promise<Admission>;
  /** Records the lines Twilio played as the call's transcript; called once per stream, if any was played. */
  report: (callId: string, spoken: readonly string[]) => Promise<void>;
  logger: Logger;
};

export const STREAM_CLOSE = {
  done: { code: 1000, reason: 'agent finished speaking' },
  stopped: { code: 1000, reason: 'stream stopped' },
  /** A stream that does not prove it comes from the call's Twilio account, or that cannot speak in it. */
  refused: { code: 1008 },
  failed: { code: 1011, reason: 'internal error' },
} as const;

type Ending = { code: number; reason: string; clear: boolean };

const markOf = (line: number) => `line-${line}`;

export class MediaStream {
  private phase: 'waiting' | 'admitting' | 'speaking' | 'ended' = 'waiting';
  private streamSid = '';
  private script: StreamScript | null = null;
  /** The lines whose audio and mark went out, in order. */
  private readonly sent: string[] = [];
  /** How many of them Twilio played (echoed their mark). */
  private played = 0;
  private allSent = false;
  private readonly abort = new AbortController();
  private finished!: () => void;
  /** Resolves once the stream ended and what it played is recorded. */
  readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(
    private readonly socket: StreamSocket,
    private readonly deps: MediaStreamDeps,
  ) {}

  /** A text message from Twilio. */
  received(text: string): void {
    const message = parseReceived(text);
    switch (message.event) {
      case 'start':
        if (this.phase === 'waiting') void this.begin(message.start);
        return;
      case 'mark':
        return this.markPlayed(message.name);
      case 'stop':
        return this.end({ ...STREAM_CLOSE.stopped, clear: true });
      case 'invalid':
        this.deps.logger.warn('twilio media stream: message refused', { reason: message.reason });
        if (this.phase === 'waiting')
          this.end({ code: STREAM_CLOSE.refused.code, reason: message.reason, clear: false });
        return;
      case 'other':
        return;
    }
  }

  /** The socket closed: the call ended (or Twilio went away). */
  closed(): void {
    this.end({ ...STREAM_CLOSE.stopped, clear: false });
  }

  private async begin(start: StartMessage): Promise<void> {
    this.phase = 'admitting';
    let admission: Admission;
    try {
      admission = await this.deps.admit(start);
    } catch (error) {
      this.deps.logger.error('twilio media stream: admission failed', { error: String(error) });
      return this.end({ ...STREAM_CLOSE.failed, clear: false });
    }
    if (this.phase !== 'admitting') return;
    if ('refused' in admission)
      return this.end({ code: STREAM_CLOSE.refused.code, reason: admission.refused, clear: false });
    this.streamSid = start.streamSid;
    this.script = admission.admitted;
    this.phase = 'speaking';
    await this.speak(admission.admitted);
  }

  /** Every line, one after the other, each sent as its audio comes (synthesis runs ahead of playback). */
  private async speak(script: StreamScript): Promise<void> {
    for (const text of script.lines) {
      const request = { text, voiceId: script.voiceId, language: script.language, sampleRate: 8000, speed: 1 } as const;
      const frames = new MulawFrames();
      try {
        for await (const chunk of this.deps.engine.synthesize(request, { signal: this.abort.signal })) {
          if (this.phase !== 'speaking') return;
          for (const frame of frames.push(chunk.pcm)) this.send(mediaMessage(this.streamSid, frame));
        }
      } catch (error) {
        if (this.phase !== 'speaking') return;
        // A line the engine cannot speak (nothing speakable in it) is left out; the others are said.
        if (error instanceof SpeechRequestError) {
          this.deps.logger.warn('twilio media stream: line skipped', { callId: script.callId, error: error.message });
          continue;
        }
        this.deps.logger.error('twilio media stream: synthesis failed', {
          callId: script.callId,
          error: String(error),
        });
        return this.end({ ...STREAM_CLOSE.failed, clear: false });
      }
      if (this.phase !== 'speaking') return;
      const last = frames.end();
      if (last) this.send(mediaMessage(this.streamSid, last));
      this.send(markMessage(this.streamSid, markOf(this.sent.length)));
      this.sent.push(text);
    }
    this.allSent = true;
    this.finishWhenPlayed();
  }

  private send(text: string): void {
    if (this.socket.isOpen()) this.socket.send(text);
  }

  /** Twilio plays in order, so marks come back in the order they went out. */
  private markPlayed(name: string): void {
    if (this.phase !== 'speaking' || name !== markOf(this.played) || this.played >= this.sent.length) return;
    this.played += 1;
    this.finishWhenPlayed();
  }

  private finishWhenPlayed(): void {
    if (this.allSent && this.played === this.sent.length) this.end({ ...STREAM_CLOSE.done, clear: false });
  }

  private end(ending: Ending): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.abort.abort();
    if (this.socket.isOpen()) {
      if (ending.clear && this.streamSid) this.socket.send(clearMessage(this.streamSid));
      this.socket.close(ending.code, ending.reason);
    }
    void this.record().finally(this.finished);
  }

  private async record(): Promise<void> {
    if (!this.script || this.played === 0) return;
    try {
      await this.deps.report(this.script.callId, this.sent.slice(0, this.played));
    } catch (error) {
      this.deps.logger.error('twilio media stream: transcript not recorded', {
        callId: this.script.callId,
        error: String(error),
      });
    }
  }
}
