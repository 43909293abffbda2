/**
 * Speech use case: a request is validated by the engine, admitted on the organization's stream
 * (concurrency limit and credits, event-sourced so every replica sees the same limits), streamed, and
 * finished with what was actually spoken, which is what it is charged.
 *
 * An admitted request holds its slot until its lease ends (`leaseUntil`, so that a process that dies
 * cannot hold it for ever). A request that ran past its lease would stop counting against the limit
 * while it still spoke: each request is therefore cut at a hard deadline before its lease ends
 * (`deadlineFor`), with time left to record its finish while the slot is still its own. It ends with
 * the outcome `timed_out` and pays for what it produced; a finish recorded after the lease anyway (a
 * store that answered late) is still charged (domain/organizations/organization.ts).
 *
 * Admission is in memory when this replica holds a block of capacity reserved in advance with room for
 * the request (capacity-blocks.ts): its start is then recorded after the fact, off the path of its
 * first audio, and its finish is recorded after its start. Otherwise it is decided on the stream.
 */
import {
  CONCURRENCY_LIMIT_EXCEEDED,
  INSUFFICIENT_CREDITS,
  organizationDecider,
  organizationStreamId,
  type SpeechOutcome,
  type SpeechStart,
} from '../../domain/organizations/organization';
import { DomainError } from '../../domain/shared/errors';
import type { CommandContext, CommandHandler } from '../command-handler';
import { SpeechRequestError, type AudioChunk, type SpeechEngine, type SynthesisRequest } from '../ports/speech-engine';
import type { RequestContext, ServiceEnvironment } from '../request-context';
import { DEFAULT_CAPACITY_OPTIONS, SpeechCapacity, type CapacityOptions } from './capacity-blocks';

export type SpeechErrorCode =
  | 'invalid_request'
  | 'invalid_voice'
  | 'invalid_language'
  | 'text_too_long'
  | 'concurrency_limit_exceeded'
  | 'insufficient_credits'
  | 'internal_error';

/** A refusal with one of the codes of spec 7.3. */
export class SpeechError extends Error {
  constructor(
    readonly code: SpeechErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SpeechError';
  }
}

export type SpeechInput = SynthesisRequest & {
  requestId: string;
  channel: 'rest' | 'websocket';
  /** Time the words: chunks then carry `words` (see `AudioChunk`); the audio and the charge are the same. */
  wordTimestamps?: boolean;
};

/** An admitted request: its audio, then `finish` once, whatever happened. */
export type SpeechStream = {
  /**
   * Aborted when the request reaches its deadline: the service then stops the synthesis and records the
   * finish itself (`timed_out`, charged what was produced), and the caller should cut its transport (a
   * client that reads nothing would otherwise hold the answer open). `finish` afterwards changes nothing.
   */
  readonly cutOff: AbortSignal;
  readonly timedOut: boolean;
  chunks: AsyncIterable<AudioChunk>;
  /** Characters whose audio was produced so far. */
  readonly charactersSpoken: number;
  readonly audioDurationMs: number;
  /** Records the end once; every call resolves when that record is durable. */
  finish(outcome: SpeechOutcome): Promise<void>;
};

/** How long a started request holds its slot if its process dies before finishing it. */
export const SPEECH_LEASE_MS = 10 * 60_000;

/**
 * How long a request may run: its lease less a fifth (at most a minute), the time its finish has to be
 * recorded before the lease ends. Nine minutes for the ten-minute lease.
 */
export const deadlineFor = (leaseMs: number) => leaseMs - Math.min(60_000, Math.floor(leaseMs / 5));

/** The message a request cut at its deadline ends with. */
export const timedOutMessage = (deadlineMs: number) =>
  `The request ran longer than the limit of ${Math.round(deadlineMs / 1000)} s and was stopped`;

export class SpeechService {
  constructor(
    private readonly engine: SpeechEngine,
    private readonly commands: CommandHandler,
    private readonly env: ServiceEnvironment,
    readonly maxTextLength: number,
    /** How long an admitted request holds its slot (`SPEECH_LEASE_MS`; shorter in tests). */
    private readonly leaseMs: number = SPEECH_LEASE_MS,
    capacityOptions: CapacityOptions = DEFAULT_CAPACITY_OPTIONS,
  ) {
    this.capacity = new SpeechCapacity(commands, env, maxTextLength, leaseMs, capacityOptions);
  }

  private readonly capacity: SpeechCapacity;

  /** How long an admitted request may run before it is cut (below its lease). */
  get deadlineMs(): number {
    return deadlineFor(this.leaseMs);
  }

  /** The finishes of the requests admitted and not finished yet: a stop waits for them (`settled`). */
  private readonly unfinished = new Set<Promise<void>>();

  /** Resolves once every admitted request has recorded its finish (or failed to). */
  async settled(): Promise<void> {
    while (this.unfinished.size > 0) await Promise.allSettled([...this.unfinished]);
    await this.capacity.releaseAll();
  }

  voices() {
    return this.engine.voices();
  }

  async open(ctx: RequestContext, input: SpeechInput, signal: AbortSignal): Promise<SpeechStream> {
    if (input.text.length > this.maxTextLength)
      throw new SpeechError('text_too_long', `text exceeds the maximum of ${this.maxTextLength} characters`);
    const { requestId, channel, wordTimestamps, ...request } = input;
    // The engine's own signal: the caller's, or a refused admission.
    const synthesis = new AbortController();
    const onAbort = () => synthesis.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let audio: AsyncIterator<AudioChunk>;
    try {
      const options = { signal: synthesis.signal, ...(wordTimestamps && { wordTimestamps }) };
      audio = this.engine.synthesize(request, options)[Symbol.asyncIterator]();
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      if (error instanceof SpeechRequestError) throw new SpeechError(error.code, error.message);
      throw error;
    }
    // The first segment is synthesized while admission is decided, so the durable admission append is
    // not added to the time to first audio. Nothing is sent before admission; a refusal aborts at once,
    // having cost at most one short first segment.
    const first = audio.next();
    first.catch(() => {});
    const stream = organizationStreamId(ctx.organizationId);
    const context = { organizationId: ctx.organizationId, actor: ctx.actor, requestId };
    const now = this.env.now();
    const speechId = this.env.newId();
    const start = {
      type: 'StartSpeechRequest' as const,
      speechId,
      requestId,
      characters: input.text.length,
      leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      at: now.toISOString(),
      voiceId: input.voiceId,
      language: input.language,
      sampleRate: input.sampleRate,
      speed: input.speed,
      channel,
    };
    // Admitted into a block in memory, its start recorded meanwhile; or decided on the stream first.
    const block = this.capacity.take(ctx.organizationId, start.characters);
    let startRecorded: Promise<unknown> = Promise.resolve();
    try {
      if (block) {
        startRecorded = this.commands.handle(organizationDecider, stream, { ...start, blockId: block.id }, context);
        startRecorded.catch(() => undefined);
      } else await this.admit(ctx.organizationId, stream, start, context);
    } catch (error) {
      synthesis.abort();
      signal.removeEventListener('abort', onAbort);
      await audio.return?.();
      const code = error instanceof DomainError ? error.details.code : undefined;
      if (code === CONCURRENCY_LIMIT_EXCEEDED || code === INSUFFICIENT_CREDITS)
        throw new SpeechError(code, error instanceof Error ? error.message : String(error));
      throw error;
    }

    let charactersSpoken = 0;
    let samples = 0;
    let finishing: Promise<void> | undefined;
    let timedOut = false;
    const commands = this.commands;
    const env = this.env;
    // Cut below the lease, on this process's clock: the slot must not outlive its lease while audio flows.
    const deadlineMs = this.deadlineMs;
    const cutOff = new AbortController();
    const deadline = setTimeout(() => {
      timedOut = true;
      synthesis.abort();
      // Recorded now, whoever consumes the audio: a consumer stalled on a client that reads nothing must not keep the slot.
      void self.finish('timed_out').catch(() => undefined);
      cutOff.abort();
    }, deadlineMs);
    deadline.unref();
    let ended!: () => void;
    const recorded = new Promise<void>((resolve) => (ended = resolve));
    this.unfinished.add(recorded);
    void recorded.then(() => this.unfinished.delete(recorded));
    const cut = () => new SpeechError('internal_error', timedOutMessage(deadlineMs));
    const capacity = this.capacity;
    const record = async (outcome: SpeechOutcome): Promise<void> => {
      clearTimeout(deadline);
      let charged = Math.min(charactersSpoken, start.characters);
      try {
        // A finish follows its start on the stream; a start that was not recorded leaves nothing to finish.
        await startRecorded.catch(() => undefined);
        const { events } = await commands.handle(
          organizationDecider,
          stream,
          {
            type: 'FinishSpeechRequest',
            speechId,
            requestId,
            charactersSpoken,
            audioDurationMs: Math.round((samples / input.sampleRate) * 1000),
            outcome: timedOut ? 'timed_out' : outcome,
            at: env.now().toISOString(),
          },
          context,
        );
        for (const e of events) if (e.type === 'SpeechRequestFinished') charged = e.data.charged;
      } finally {
        if (block) capacity.giveBack(block, start.characters, charged);
        ended();
      }
    };
    const self: SpeechStream = {
      cutOff: cutOff.signal,
      chunks: (async function* () {
        try {
          for (let next = await first; !next.done; next = await audio.next()) {
            if (timedOut) throw cut();
            charactersSpoken = next.value.charactersSpoken;
            samples += next.value.pcm.length;
            yield next.value;
            if (timedOut) throw cut();
          }
        } catch (error) {
          throw timedOut ? cut() : error;
        } finally {
          signal.removeEventListener('abort', onAbort);
          await audio.return?.();
        }
      })(),
      get timedOut() {
        return timedOut;
      },
      get charactersSpoken() {
        return charactersSpoken;
      },
      get audioDurationMs() {
        return Math.round((samples / input.sampleRate) * 1000);
      },
      // Recorded once, by whichever caller comes first (the consumer, or the deadline), and every caller
      // waits for that recording: none answers its client before the end is durable.
      finish(outcome) {
        return (finishing ??= record(outcome));
      },
    };
    return self;
  }

  /**
   * Decides a request's admission on the stream. A refusal while this replica holds blocks with no
   * request in them may be theirs (they hold capacity for requests to come): they are released and the
   * request is decided once more.
   */
  private async admit(
    organizationId: string,
    stream: string,
    start: { type: 'StartSpeechRequest' } & SpeechStart,
    context: CommandContext,
  ): Promise<void> {
    try {
      await this.commands.handle(organizationDecider, stream, start, context);
    } catch (error) {
      const code = error instanceof DomainError ? error.details.code : undefined;
      const refused = code === CONCURRENCY_LIMIT_EXCEEDED || code === INSUFFICIENT_CREDITS;
      if (!refused || !(await this.capacity.releaseIdle(organizationId))) throw error;
      await this.commands.handle(organizationDecider, stream, start, context);
    }
  }
}
