/**
 * Runs process managers: event handlers with side effects (dialing a call, sending a chat). Each has
 * a checkpoint in the read store and follows the event store from it, one event at a time, so a
 * restart resumes where it stopped. Delivery is at least once: a handler must make a repeated event
 * harmless, which it does by recording each step as a command on an aggregate whose rules refuse to
 * take the same step twice (for a call: `DialCall` yields nothing once the call was dialed).
 */
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

export class ProcessManagerRunner {
  private controller: AbortController | null = null;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly managers: readonly ProcessManager[],
    private readonly options: { logger?: Logger; pollMs?: number } = {},
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
    for await (const batch of subscribeToAll(this.events, { after, batchSize: 200, pollMs: this.options.pollMs ?? 500, signal })) {
      for (const event of batch) {
        if (signal.aborted) return;
        if (types.has(event.type)) await this.handle(manager, event);
      }
      await this.reads.commit({ projection: checkpointName(manager), checkpoint: batch[batch.length - 1]!.position, writes: [] });
    }
  }

  /** A failing step is tried again a few times, then logged and passed over so later events still run. */
  private async handle(manager: ProcessManager, event: RecordedEvent): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        return await manager.handle(event);
      } catch (error) {
        this.options.logger?.[attempt === ATTEMPTS ? 'error' : 'warn']('process manager step failed', { manager: manager.name, eventId: event.id, type: event.type, attempt, error: String(error) });
        if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }
}

const checkpointName = (manager: ProcessManager) => `process:${manager.name}`;
