/**
 * The one shape of a feature: a module builds its services from the shared ports and answers with what
 * it adds to the running service: its routes (each declared once, with its OpenAPI entry and scopes),
 * its process managers, the services it lends to the modules after it, and its start and stop. The
 * composition root is a list of modules (api/modules.ts); the application and the start and shutdown
 * loop over them.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { CommandHandler } from '../application/command-handler';
import type { Foreground } from '../application/foreground';
import type { Lookups } from '../application/lookups';
import type { ProcessManager } from '../application/process-manager';
import type { ProjectionRunner } from '../application/projection-runner';
import type { EventStore } from '../application/ports/event-store';
import type { KeyStore } from '../application/ports/key-store';
import type { Logger } from '../application/ports/logger';
import type { DerivedFeed } from '../application/rebuild/generation-builder';
import type { ReadStore } from '../application/ports/read-store';
import type { SpeechEngine } from '../application/ports/speech-engine';
import type { ServiceEnvironment } from '../application/request-context';
import type { Config } from '../infrastructure/config/config';
import type { AnyProjection } from '../projections/projection';
import type { Authenticator } from './http/auth';
import type { Metrics } from './http/metrics';
import type { RouteGroup } from './http/route';
import type { Provided } from './provided';

/** What every module is built from: the stores, the clock and ids, the configuration, the cross-feature lookups. */
export type ModuleDeps = {
  config: Config;
  logger: Logger;
  events: EventStore;
  reads: ReadStore;
  /** The keys personal data in events is sealed with (docs/privacy.md): erasing a subject deletes its keys. */
  keys: KeyStore;
  /** The projections: `waitFor(position)` until the read models include an event. */
  runner: ProjectionRunner;
  commands: CommandHandler;
  env: ServiceEnvironment;
  /** The speech engine, in processes that serve speech (`SERVICES`); null otherwise. */
  engine: SpeechEngine | null;
  lookups: Lookups;
  foreground: Foreground;
  metrics: Metrics;
  authenticate: Authenticator;
  /** Services earlier modules lend (`use`), and the place to lend one's own (`provide`). */
  provided: Registry;
  shuttingDown: () => boolean;
  /** This replica among the others sharing the stores: its name in the leases, and the names of the replicas alive. */
  replica: { name: string; alive: () => Promise<ReadonlySet<string>> };
};

/**
 * Background work of agent processes (a due poller, a resumer) that one replica at a time runs: each
 * under a lease of its own (`job:<name>`), started when this replica takes the lease and stopped when
 * it gives it up, so it may start and stop more than once.
 */
export type Job = { name: string; start: () => Promise<void> | void; stop: () => Promise<void> };

/**
 * A WebSocket route of a module (a carrier's media stream): upgrades to `path` are accepted as they
 * come, and `handle` authenticates what it needs to on the socket itself, calling `authenticated` once
 * it did; a socket that has not within `authTimeoutMs` is closed (api/sockets/module-sockets.ts).
 * `settled` resolves once the work of the sockets closed so far is done; a stop waits for it (bounded)
 * before the stores close.
 */
export type SocketRoute = {
  path: string;
  authTimeoutMs: number;
  handle: (ws: WebSocket, req: IncomingMessage, authenticated: () => void) => void;
  settled?: () => Promise<void>;
};

/** A feature as the running service sees it. */
export type Module = {
  name: string;
  /** Routes, grouped by prefix and by how their callers authenticate. */
  routes?: readonly RouteGroup[];
  /** Event-driven steps with side effects; agent processes run them, each on the replica holding its lease. */
  managers?: readonly ProcessManager[];
  /** Background work, each on the replica holding its lease. */
  jobs?: readonly Job[];
  /** WebSocket routes beside the HTTP ones. */
  sockets?: readonly SocketRoute[];
  /** At shutdown, after every job stopped: ends what the process itself plays (the built-in carrier's calls); reverse module order. */
  stop?: () => Promise<void>;
};

export type ModuleDefinition = {
  name: string;
  /** The read models the module owns (others may read their collections); the projection runner keeps them all. */
  projections: readonly AnyProjection[];
  /**
   * The read models its routes read, its own and others' (through the services and lookups they use):
   * an organization route waits at the door for these to include earlier writes, and for no other, and
   * answers 503 when one of them stopped on an event it cannot apply (docs/projection-failures.md).
   */
  reads: readonly AnyProjection[];
  build: (deps: ModuleDeps) => Promise<Omit<Module, 'name'>> | Omit<Module, 'name'>;
  /**
   * Read models that read a feed derived from the log instead of its events (the analytics rollups read
   * the log entries' changes): the module runs them itself (the projection runner does not keep them), and
   * `projections rebuild|verify` builds them with the others, each over a new `feed` of the log.
   */
  derived?: readonly DerivedProjections[];
  /**
   * The module as it runs over this event store, when what the store offers changes the read models it
   * keeps (the audit keeps no event index over a store that searches its own events); itself otherwise.
   */
  over?: (events: EventStore) => ModuleDefinition;
};

/** Projections that read a feed derived from the log (`ModuleDefinition.derived`), and how to make the feed. */
export type DerivedProjections = {
  projections: readonly AnyProjection[];
  feed: (events: EventStore) => DerivedFeed;
};

/** The services modules lend each other, by name. Taking one no earlier module lent is a wiring error, found at start. */
export class Registry {
  private readonly services = new Map<keyof Provided, unknown>();

  provide<K extends keyof Provided>(name: K, service: Provided[K]): void {
    if (this.services.has(name)) throw new Error(`${String(name)} is provided twice`);
    this.services.set(name, service);
  }

  use<K extends keyof Provided>(name: K): Provided[K] {
    if (!this.services.has(name))
      throw new Error(`${String(name)} is used before any module provides it: list its module earlier`);
    return this.services.get(name) as Provided[K];
  }

  /** A service that a process may run without (speech in an agent-only process). */
  find<K extends keyof Provided>(name: K): Provided[K] | undefined {
    return this.services.get(name) as Provided[K] | undefined;
  }
}
