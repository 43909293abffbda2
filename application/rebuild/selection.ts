/**
 * Which projections a rebuild or a verification covers: the ones named (all by default), and with
 * them every projection that writes into the same collection (call and chat log entries share `logs`),
 * since a generation is a set of collections and they switch together.
 */
import type { AnyProjection, CollectionDefinition } from '../../projections/projection';

export class UnknownProjectionError extends Error {
  constructor(
    readonly unknown: readonly string[],
    readonly known: readonly string[],
  ) {
    super(`Unknown projection ${unknown.join(', ')}; known: ${known.join(', ')}`);
    this.name = 'UnknownProjectionError';
  }
}

export type Selection = {
  projections: AnyProjection[];
  /** The collections they fill, each once. */
  collections: CollectionDefinition[];
};

export function select(all: readonly AnyProjection[], names: readonly string[]): Selection {
  const unknown = names.filter((name) => !all.some((p) => p.name === name));
  if (unknown.length > 0)
    throw new UnknownProjectionError(
      unknown,
      all.map((p) => p.name),
    );
  const named = names.length === 0 ? all : all.filter((p) => names.includes(p.name));
  const collections = new Set(named.map((p) => p.collection.name));
  const projections = all.filter((p) => collections.has(p.collection.name));
  const definitions = new Map(projections.map((p) => [p.collection.name, p.collection]));
  return { projections, collections: [...definitions.values()] };
}
