/**
 * The generic command handler: read the aggregate's stream, fold it, decide, and append with the
 * revision it read. A concurrent writer makes the append fail with a wrong expected revision; the
 * handler then reads the new events and decides again. Folded states are cached per stream, so a
 * command reads only the events appended since the last one. The cache shares state objects with
 * callers: deciders' `evolve` never mutates a state, it returns a new one.
 */
import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../domain/shared/decider';
import type { EventMetadata, EventStore } from './ports/event-store';
import { WrongExpectedRevisionError } from './ports/event-store';

export type CommandContext = {
  organizationId: string | null;
  actor: string;
  requestId: string;
  correlationId?: string;
  causationId?: string | null;
};

export type CommandResult<Event> = { events: Event[]; nextExpectedRevision: number; position: number };

export const SCHEMA_VERSION = 1;
const MAX_ATTEMPTS = 20;
const CACHE_LIMIT = 10_000;

export class CommandHandler {
  private readonly cache = new Map<string, { state: unknown; revision: number }>();

  constructor(
    private readonly store: EventStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async handle<Command, Event extends DomainEvent, State>(
    decider: Decider<Command, Event, State>,
    streamId: string,
    command: Command,
    context: CommandContext,
  ): Promise<CommandResult<Event>> {
    // Optimistic: decide on the cached state (or, for a stream never seen, on the initial state) without
    // reading the store. An append on a stale state fails on its expected revision; a refusal or a
    // no-op has no append to check it, so it is confirmed on a fresh read before it is answered.
    const cached = this.cache.get(streamId) as { state: State; revision: number } | undefined;
    let { state, revision } = cached ?? { state: decider.initialState(), revision: -1 };
    let fresh = false;
    for (let attempt = 1; ; attempt++) {
      let events: Event[];
      try {
        events = decider.decide(command, state);
      } catch (error) {
        if (fresh) throw error;
        ({ state, revision } = await this.load(decider, streamId));
        fresh = true;
        continue;
      }
      if (events.length === 0) {
        if (fresh) return { events, nextExpectedRevision: revision, position: -1 };
        ({ state, revision } = await this.load(decider, streamId));
        fresh = true;
        continue;
      }
      const metadata = this.metadata(context);
      try {
        const result = await this.store.appendToStream(
          streamId,
          events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata })),
          { expectedRevision: revision < 0 ? 'no_stream' : revision },
        );
        this.remember(streamId, events.reduce(decider.evolve, state), result.nextExpectedRevision);
        return { events, ...result };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
        if (fresh) await new Promise((r) => setTimeout(r, Math.random() * attempt * 2));
        ({ state, revision } = await this.load(decider, streamId));
        fresh = true;
      }
    }
  }

  /** The current state of an aggregate, for queries that must see the write side's truth. */
  async load<Command, Event extends DomainEvent, State>(decider: Decider<Command, Event, State>, streamId: string): Promise<{ state: State; revision: number }> {
    const cached = this.cache.get(streamId) as { state: State; revision: number } | undefined;
    let state = cached ? cached.state : decider.initialState();
    let revision = cached?.revision ?? -1;
    const newer = await this.store.readStream(streamId, { fromRevision: revision + 1 });
    for (const event of newer) {
      state = decider.evolve(state, { type: event.type, data: event.data } as Event);
      revision = event.revision;
    }
    if (newer.length > 0) this.remember(streamId, state, revision);
    return { state, revision };
  }

  private remember(streamId: string, state: unknown, revision: number): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, { state, revision });
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
  }

  private metadata(context: CommandContext): EventMetadata {
    return {
      organizationId: context.organizationId,
      actor: context.actor,
      requestId: context.requestId,
      correlationId: context.correlationId ?? context.requestId,
      causationId: context.causationId ?? null,
      occurredAt: this.clock().toISOString(),
      schemaVersion: SCHEMA_VERSION,
    };
  }
}
