/**
 * Runs process managers: event handlers with side effects (dialing a call, sending a chat). Each has
 * a checkpoint in the read store and follows the event store from it, one event at a time, so a
 * restart resumes where it stopped. Delivery is at least once: a handler must make a repeated event
 * harmless, which it does by recording each step as a command on an aggregate whose rules refuse to
 * take the same step twice (for a call: `DialCall` yields nothing once the call was dialed).
 *
 * Within a batch, events of different streams are handled concurrently (at most `CONCURRENCY` at a
 * time) and events of one stream in order; the checkpoint moves once the whole batch is handled, so a
 * crash hands the batch over again. Handlers never rely on the order of events of different streams.
 *
 * A step that still fails after a few tries is passed over, so one bad event cannot stop every later
 * call and chat; it is recorded as a `ProcessStepFailed` event on the stream `processFailures-<manager>`
 * (the event, its position and the error), where an operator or an auditor finds it.
 */
import { derivedId } from './derived-id';
import type { Foreground } from './foreground';
import type { Logger } from './ports/logger';
import type { EventStore, RecordedEvent } from './ports/event-store';
import type { ReadStore } from './ports/read-store';
import { subscribeToAll } from './subscribe-to-all';

export type ProcessManager = {
  name: string;
  eventTypes: readonly string[];
  handle: (event: RecordedEvent) => Promise<void>;
};

const ATTEMPTS = 3;
const CONCURRENCY = 32;
const YIELD_MS = 250;
/** A batch with nothing for a manager moves its checkpoint in memory; it is written after this many events or this long. */
const CHECKPOINT_EVERY_EVENTS = 1000;
const CHECKPOINT_EVERY_MS = 1000;

export class ProcessManagerRunner {
  private controller: AbortController | null = null;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly managers: readonly ProcessManager[],
    private readonly options: { logger?: Logger; pollMs?: number; foreground?: Foreground } = {},
  ) {}

  async start(): Promise<void> {
    this.controller = new AbortController();
    const signal = this.controller.signal;
    const checkpoints = await Promise.all(this.managers.map((m) => this.reads.checkpoint(checkpointName(m))));
    this.loops = this.managers.map((m, i) => this.run(m, checkpoints[i]!, signal));
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async run(manager: ProcessManager, after: number, signal: AbortSignal): Promise<void> {
    const types = new Set(manager.eventTypes);
    let persisted = { position: after, at: Date.now() };
    let pendingCheckpoint: number | null = null;
    for await (const batch of subscribeToAll(this.events, { after, batchSize: 200, pollMs: this.options.pollMs ?? 500, signal })) {
      const byStream = new Map<string, RecordedEvent[]>();
      for (const event of batch) if (types.has(event.type)) byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event]);
      const streams = [...byStream.values()];
      // Requests being answered go first; this work waits for a quiet moment, a quarter second at most.
      if (streams.length > 0) await this.options.foreground?.quiet(YIELD_MS);
      const lane = async () => {
        for (let next = streams.shift(); next && !signal.aborted; next = streams.shift()) for (const event of next) if (!signal.aborted) await this.handle(manager, event);
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, streams.length) }, lane));
      if (signal.aborted) break;
      const position = batch[batch.length - 1]!.position;
      // After a crash, events the manager ignores are read again, which changes nothing.
      if (streams.length === 0 && position - persisted.position < CHECKPOINT_EVERY_EVENTS && Date.now() - persisted.at < CHECKPOINT_EVERY_MS) {
        pendingCheckpoint = position;
        continue;
      }
      await this.reads.commit({ projection: checkpointName(manager), checkpoint: position, writes: [] });
      persisted = { position, at: Date.now() };
      pendingCheckpoint = null;
    }
    if (pendingCheckpoint !== null) await this.reads.commit({ projection: checkpointName(manager), checkpoint: pendingCheckpoint, writes: [] });
  }

  /** A failing step is tried again a few times, then recorded and passed over so later events still run. */
  private async handle(manager: ProcessManager, event: RecordedEvent): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        return await manager.handle(event);
      } catch (error) {
        this.options.logger?.[attempt === ATTEMPTS ? 'error' : 'warn']('process manager step failed', { manager: manager.name, eventId: event.id, type: event.type, attempt, error: String(error) });
        if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * attempt));
        else await this.recordFailure(manager, event, error);
      }
    }
  }

  private async recordFailure(manager: ProcessManager, event: RecordedEvent, error: unknown): Promise<void> {
    const data = { manager: manager.name, eventId: event.id, eventType: event.type, streamId: event.streamId, position: event.position, error: error instanceof Error ? error.message : String(error), attempts: ATTEMPTS };
    const metadata = { ...event.metadata, actor: `process:${manager.name}`, causationId: event.id, occurredAt: new Date().toISOString() };
    // The id derives from manager and event, so a failure handled again after a restart is recorded once.
    const id = derivedId('process-step-failed', manager.name, event.id);
    await this.events.appendToStream(`processFailures-${manager.name}`, [{ id, type: 'ProcessStepFailed', data, metadata }]).catch((e) => this.options.logger?.error('process step failure not recorded', { manager: manager.name, eventId: event.id, error: String(e) }));
  }
}

const checkpointName = (manager: ProcessManager) => `process:${manager.name}`;
