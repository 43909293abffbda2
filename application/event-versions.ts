/**
 * Event versions: how an event's shape changes without rewriting what the store holds.
 *
 * Every event is written at the current schema version of its type (`metadata.schemaVersion`). When a
 * type's shape changes, an upcaster turns an event of the previous version into the next one, and the
 * type's current version goes up by one. Events are upcast on read (upcasting-event-store.ts), one step
 * after another until the current version, so every reader sees the current shape only. An upcaster
 * may also rename the event (`type`): the chain then goes on with the new type's upcasters, and the
 * version keeps counting (an `A` at version 1 renamed to `B` is a `B` at version 2).
 *
 * The current version of each type is declared in one map beside the upcasters (the command handler
 * writes new events at it; a type not in the map is at 1), and the registry checks that the two agree:
 * every upcaster starts below its type's current version, and a type's upcasters leave no gap up to it.
 * docs/event-versions.md tells when to upcast and how to add an upcaster.
 */
import type { EventMetadata } from '../domain/shared/recorded-event';

export type Upcaster = {
  /** The event type as stored at `fromVersion`. */
  type: string;
  fromVersion: number;
  /**
   * The event at `fromVersion + 1`: pure and deterministic (no clock, no lookup), and returning new
   * objects, never changing `data` (a store may hand out the objects it holds). `type` renames it.
   */
  upcast(data: unknown, metadata: EventMetadata): { type?: string; data: unknown };
};

/** An event written by newer code (or a step missing here): reading it in an older shape would misread it. */
export class UnknownSchemaVersionError extends Error {
  constructor(
    readonly eventId: string,
    readonly eventType: string,
    readonly schemaVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `Event ${eventId} (${eventType}) has schema version ${schemaVersion}, ` +
        (schemaVersion > knownVersion
          ? `newer than this code knows (${knownVersion}): run a version of the service that knows it`
          : `and no upcaster takes it to the current version (${knownVersion})`),
    );
    this.name = 'UnknownSchemaVersionError';
  }
}

type Shape = { id: string; type: string; data: unknown; metadata: EventMetadata };

export class EventVersions {
  private readonly steps = new Map<string, Upcaster>();

  constructor(
    private readonly current: Readonly<Record<string, number>>,
    upcasters: readonly Upcaster[],
  ) {
    for (const [type, version] of Object.entries(current))
      if (!Number.isInteger(version) || version < 1)
        throw new Error(`${type}: a schema version is an integer from 1, not ${version}`);
    for (const upcaster of upcasters) {
      const { type, fromVersion } = upcaster;
      if (!Number.isInteger(fromVersion) || fromVersion < 1 || fromVersion >= this.versionOf(type))
        throw new Error(
          `Upcaster of ${type} from version ${fromVersion}: it must start from 1 to below the current version ${this.versionOf(type)}`,
        );
      const key = stepKey(type, fromVersion);
      if (this.steps.has(key)) throw new Error(`Two upcasters of ${type} from version ${fromVersion}`);
      this.steps.set(key, upcaster);
    }
    // From a type's first upcaster on, each version has one up to the current (before it, the type may
    // have been another one's, renamed into it).
    for (const type of new Set(upcasters.map((u) => u.type))) {
      const first = Math.min(...upcasters.filter((u) => u.type === type).map((u) => u.fromVersion));
      for (let from = first; from < this.versionOf(type); from++)
        if (!this.steps.has(stepKey(type, from))) throw new Error(`No upcaster of ${type} from version ${from}`);
    }
  }

  /** The version events of `type` are written at. */
  versionOf(type: string): number {
    return Object.hasOwn(this.current, type) ? this.current[type]! : 1;
  }

  /**
   * The event in its current shape: the same object when it already is (the usual case, at no cost),
   * else a copy with the upcast type and data and `metadata.schemaVersion` the current version.
   * Throws `UnknownSchemaVersionError` for a version newer than known or one no step leads on from.
   */
  upcast<Event extends Shape>(event: Event): Event {
    // Events written before versions were recorded count as the first version.
    const stored = event.metadata.schemaVersion ?? 1;
    let { type, data } = event;
    let version = stored;
    while (version !== this.versionOf(type)) {
      const step = version < this.versionOf(type) ? this.steps.get(stepKey(type, version)) : undefined;
      if (!step) throw new UnknownSchemaVersionError(event.id, type, version, this.versionOf(type));
      const next = step.upcast(data, event.metadata);
      type = next.type ?? type;
      data = next.data;
      version += 1;
    }
    return version === stored && type === event.type
      ? event
      : { ...event, type, data, metadata: { ...event.metadata, schemaVersion: version } };
  }
}

const stepKey = (type: string, fromVersion: number) => `${type}@${fromVersion}`;
