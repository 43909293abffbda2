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
 * With many replicas (`leased`), each manager runs only on the replica holding its lease (`run`,
 * `halt`), and its checkpoint commits carry the lease's fence: a holder that stalled past its lease
 * cannot move the checkpoint of its successor.
 *
 * What a failing step gets depends on why it failed:
 * - not ready (`RetryLater`: the read models it needs are behind) or a transient store or network
 *   error (`isTransient`: a leader election, a step-down, a busy file): tried again with growing pauses
 *   (up to 30 s), for as long as it takes; nothing is passed over;
 * - refused for good (`PermanentStepError`, or a rule of the domain refusing the command): recorded and
 *   passed over at once;
 * - anything else (a bug): tried a few times, then recorded and passed over, so one bad event cannot stop
 *   every later call and chat (the calls and chats it leaves undispatched are found by the reconciler).
 * A step passed over is recorded as a `ProcessStepFailed` event on the stream `processFailures-<manager>`
 * (the event, its position and the error), where an operator or an auditor finds it. The record is
 * written before the checkpoint moves past the event, tried again for as long as the store refuses it.
 */
import { DomainError } from '../domain/shared/errors';
import { derivedId } from './derived-id';
import type { Foreground } from './foreground';
import { pause } from './pause';
import type { Logger } from './ports/logger';
import type { EventStore, RecordedEvent } from './ports/event-store';
import { FencedOutError, type Fence } from './ports/leases';
import type { ReadStore } from './ports/read-store';
import { subscribeToAll } from './subscribe-to-all';
import { eventVersions } from './upcasters';

/** Thrown by a step that cannot run yet (the read models it needs have not caught up): it is tried again later, without limit. */
export class RetryLater extends Error {}

/** Thrown by a step that can never succeed for this event: recorded and passed over at once. */
export class PermanentStepError extends Error {}

export type ProcessManager = {
  name: string;
  eventTypes: readonly string[];
  handle: (event: RecordedEvent) => Promise<void>;
};

/** Tries of a step failing for an unknown reason before it is recorded and passed over. */
const ATTEMPTS = 3;
/** The longest pause between two tries of a step that waits (not ready, or a transient error). */
const MAX_WAIT_MS = 30_000;
const CONCURRENCY = 32;
const YIELD_MS = 250;
/** A bulk request (thousands of records or messages) is given longer: its answer waits for its own appends. */
const BULK_YIELD_MS = 1000;
/** A batch with nothing for a manager moves its checkpoint in memory; it is written after this many events or this long. */
const CHECKPOINT_EVERY_EVENTS = 1000;
const CHECKPOINT_EVERY_MS = 1000;

export class ProcessManagerRunner {
  /** The managers running here, each with its own stop. */
  private readonly loops = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly byName: ReadonlyMap<string, ProcessManager>;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly managers: readonly ProcessManager[],
    private readonly options: {
      logger?: Logger;
      pollMs?: number;
      foreground?: Foreground;
      /**
       * Resolves once the read models include every event up to `position` (or `signal` aborts).
       * Handlers look things up in read models (a call's customer and agent, a log entry to deliver,
       * a workflow's contact); they see at least the state the events they handle were written
       * against, even when the command that wrote them answered without waiting for the projections
       * (bulk writes), and need no wait of their own.
       */
      readModelsAt?: (position: number, signal: AbortSignal) => Promise<void>;
      /** Told when a checkpoint commit was refused because the lease changed hands; the manager stopped here. */
      onFencedOut?: (lease: string) => void;
      /** Store and network errors that pass by themselves (infrastructure/shared/transient-errors.ts). */
      isTransient?: (error: unknown) => boolean;
    } = {},
  ) {
    this.byName = new Map(managers.map((m) => [m.name, m]));
  }

  get names(): readonly string[] {
    return this.managers.map((m) => m.name);
  }

  /** Runs every manager, unfenced (one replica). */
  async start(): Promise<void> {
    for (const manager of this.managers) await this.run(manager.name, null);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.loops.keys()].map((name) => this.halt(name)));
  }

  /** Runs one manager from its checkpoint, its checkpoint commits fenced by `fence`. */
  async run(name: string, fence: Fence | null): Promise<void> {
    const manager = this.byName.get(name);
    if (!manager) throw new Error(`Unknown process manager ${name}`);
    if (this.loops.has(name)) return;
    const controller = new AbortController();
    const checkpoint = await this.reads.checkpoint(checkpointName(manager));
    this.loops.set(name, { controller, done: this.follow(manager, checkpoint, fence, controller.signal) });
  }

  /** Stops one manager; resolves once its steps in progress ended. */
  async halt(name: string): Promise<void> {
    const loop = this.loops.get(name);
    if (!loop) return;
    loop.controller.abort();
    await loop.done;
    if (this.loops.get(name) === loop) this.loops.delete(name);
  }

  /** Follows the store for one manager until stopped; a store that fails (a read, a checkpoint) is tried again from the last checkpoint. */
  private async follow(
    manager: ProcessManager,
    checkpoint: number,
    fence: Fence | null,
    signal: AbortSignal,
  ): Promise<void> {
    let after = checkpoint;
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.followOnce(manager, after, fence, signal, () => (failures = 0));
      } catch (error) {
        if (error instanceof FencedOutError) {
          this.options.logger?.warn('lease lost to another replica; the process manager stops here', {
            manager: manager.name,
            lease: error.lease,
          });
          this.loops.delete(manager.name);
          this.options.onFencedOut?.(error.lease);
          return;
        }
        this.options.logger?.error('process manager stopped on a store error; resuming from its checkpoint', {
          manager: manager.name,
          transient: this.options.isTransient?.(error) ?? false,
          error: String(error),
        });
        await pause(waitAfter(++failures), signal);
        after = await this.reads.checkpoint(checkpointName(manager)).catch(() => after);
      }
    }
  }

  private async followOnce(
    manager: ProcessManager,
    after: number,
    fence: Fence | null,
    signal: AbortSignal,
    progressed: () => void,
  ): Promise<void> {
    const commit = (position: number) =>
      this.reads.commit({
        projection: checkpointName(manager),
        checkpoint: position,
        writes: [],
        ...(fence && { fences: [fence] }),
      });
    const types = new Set(manager.eventTypes);
    // Positions are not counts (on EventStoreDB they are byte offsets): the events are counted.
    let persisted = { events: 0, at: Date.now() };
    let pendingCheckpoint: number | null = null;
    for await (const batch of subscribeToAll(this.events, {
      after,
      batchSize: 200,
      pollMs: this.options.pollMs ?? 500,
      signal,
    })) {
      const byStream = new Map<string, RecordedEvent[]>();
      for (const event of batch)
        if (types.has(event.type)) byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event]);
      const streams = [...byStream.values()];
      const handled = streams.length;
      // Requests being answered go first; this work waits for a quiet moment, a quarter second at most
      // (a second while a bulk request writes).
      if (handled > 0) {
        await this.options.foreground?.quiet(YIELD_MS);
        await this.options.foreground?.quietOfBulk(BULK_YIELD_MS);
        await this.options.readModelsAt?.(
          Math.max(...streams.map((events) => events[events.length - 1]!.position)),
          signal,
        );
      }
      const lane = async () => {
        for (let next = streams.shift(); next && !signal.aborted; next = streams.shift())
          for (const event of next) if (!signal.aborted) await this.handle(manager, event, signal);
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, handled) }, lane));
      if (signal.aborted) break;
      const position = batch[batch.length - 1]!.position;
      persisted.events += batch.length;
      // After a crash, events the manager ignores are read again, which changes nothing.
      if (
        handled === 0 &&
        persisted.events < CHECKPOINT_EVERY_EVENTS &&
        Date.now() - persisted.at < CHECKPOINT_EVERY_MS
      ) {
        pendingCheckpoint = position;
        continue;
      }
      await commit(position);
      persisted = { events: 0, at: Date.now() };
      pendingCheckpoint = null;
      progressed();
    }
    if (pendingCheckpoint !== null) await commit(pendingCheckpoint);
  }

  /** Runs one step until it succeeds or is recorded as failed (see the top of this file); returns early only when stopped. */
  private async handle(manager: ProcessManager, event: RecordedEvent, signal: AbortSignal): Promise<void> {
    let waits = 0;
    let attempts = 0;
    while (!signal.aborted) {
      try {
        return await manager.handle(event);
      } catch (error) {
        const context = { manager: manager.name, eventId: event.id, type: event.type, error: String(error) };
        const kind = this.kindOf(error);
        if (kind === 'wait') {
          if (waits % 10 === 0) this.options.logger?.warn('process manager step waits; trying again', context);
          await pause(waitAfter(++waits), signal);
          continue;
        }
        attempts++;
        if (kind === 'unknown' && attempts < ATTEMPTS) {
          this.options.logger?.warn('process manager step failed', { ...context, attempt: attempts });
          await pause(100 * attempts, signal);
          continue;
        }
        this.options.logger?.error('process manager step failed; recorded and passed over', {
          ...context,
          attempts,
        });
        return await this.recordFailure(manager, event, error, attempts, signal);
      }
    }
  }

  private kindOf(error: unknown): 'wait' | 'permanent' | 'unknown' {
    if (error instanceof RetryLater || this.options.isTransient?.(error)) return 'wait';
    if (error instanceof PermanentStepError || error instanceof DomainError) return 'permanent';
    return 'unknown';
  }

  /** Appends the record of a step passed over, trying again until the store takes it (or the manager stops). */
  private async recordFailure(
    manager: ProcessManager,
    event: RecordedEvent,
    error: unknown,
    attempts: number,
    signal: AbortSignal,
  ): Promise<void> {
    const data = {
      manager: manager.name,
      eventId: event.id,
      eventType: event.type,
      streamId: event.streamId,
      position: event.position,
      error: error instanceof Error ? error.message : String(error),
      attempts,
    };
    const metadata = {
      ...event.metadata,
      actor: `process:${manager.name}`,
      causationId: event.id,
      occurredAt: new Date().toISOString(),
      // Its own version, not the failed event's.
      schemaVersion: eventVersions.versionOf('ProcessStepFailed'),
    };
    // The id derives from manager and event, so a failure handled again after a restart is recorded once.
    const id = derivedId('process-step-failed', manager.name, event.id);
    for (let tries = 1; !signal.aborted; tries++) {
      try {
        await this.events.appendToStream(`processFailures-${manager.name}`, [
          { id, type: 'ProcessStepFailed', data, metadata },
        ]);
        return;
      } catch (e) {
        this.options.logger?.error('process step failure not recorded yet; trying again', {
          manager: manager.name,
          eventId: event.id,
          error: String(e),
        });
        await pause(waitAfter(tries), signal);
      }
    }
  }
}

/** Growing pauses, 200 ms doubling up to 30 s, with a little jitter so replicas do not retry in step. */
const waitAfter = (tries: number) => Math.min(MAX_WAIT_MS, 100 * 2 ** Math.min(tries, 9)) * (0.8 + Math.random() * 0.4);

/** The name of a process manager's checkpoint in the read store. */
export const processCheckpoint = (name: string) => `process:${name}`;
const checkpointName = (manager: ProcessManager) => processCheckpoint(manager.name);
