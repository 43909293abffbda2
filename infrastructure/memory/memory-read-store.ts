/** Read store held in memory; queries are evaluated by scanning, which is fine at test sizes. */
import { compareBy, matches } from '../../application/query-match';
import { FencedOutError } from '../../application/ports/leases';
import { MemoryLeaseStore } from './memory-lease-store';
import {
  generationCheckpoint,
  GenerationChangedError,
  physicalName,
  projectionsOf,
} from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  GenerationLoad,
  Generations,
  GenerationSet,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  StoredDocument,
  SwitchResult,
} from '../../application/ports/read-store';

type Table = Map<string, StoredDocument<unknown>>;

export class MemoryReadStore implements ReadStore {
  /** By physical name (the collection's name in its generation). */
  private readonly tables = new Map<string, Table>();
  /** Checkpoints by their name in their generation. */
  private readonly positions = new Map<string, number>();
  /** Active generations other than 0: `p:<projection>` and `c:<collection>`. */
  private readonly active = new Map<string, number>();
  readonly leases = new MemoryLeaseStore();
  readonly generations: Generations = new MemoryGenerations(this);

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    this.tableOf(definition.name, this.activeOf('c', definition.name));
    return new MemoryCollection<T>(definition, () =>
      this.tableOf(definition.name, this.activeOf('c', definition.name))!,
    );
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    for (const fence of batch.fences ?? [])
      if (this.leases.tokenOf(fence.lease) !== fence.token) throw new FencedOutError(fence.lease);
    const generationOf = (name: string) => batch.building ?? this.activeOf('p', name);
    const changed = Object.entries(batch.generations ?? {})
      .filter(([name, generation]) => generationOf(name) !== generation)
      .map(([name]) => name);
    if (changed.length > 0) throw new GenerationChangedError(changed);
    const tableOf = (collection: string) =>
      this.tables.get(physicalName(collection, batch.building ?? this.activeOf('c', collection)));
    for (const { collection } of batch.writes)
      if (!tableOf(collection)) throw new Error(`Unknown collection ${collection}`);
    for (const { collection, document } of batch.writes) {
      const table = tableOf(collection)!;
      if ((table.get(document.id)?.position ?? -1) > document.position) continue;
      table.set(document.id, structuredClone(document));
    }
    for (const name of projectionsOf(batch))
      this.moveCheckpoint(generationCheckpoint(name, generationOf(name)), batch.checkpoint);
  }

  async checkpoint(projection: string): Promise<number> {
    return this.positions.get(generationCheckpoint(projection, this.activeOf('p', projection))) ?? -1;
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    return new Map(await Promise.all(projections.map(async (name) => [name, await this.checkpoint(name)] as const)));
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    for (const name of collections) this.tables.get(physicalName(name, this.activeOf('c', name)))?.clear();
    this.positions.delete(generationCheckpoint(projection, this.activeOf('p', projection)));
  }

  async close(): Promise<void> {}

  activeOf(kind: 'p' | 'c', name: string): number {
    return this.active.get(`${kind}:${name}`) ?? 0;
  }

  tableOf(collection: string, generation: number, create = true): Table | undefined {
    const name = physicalName(collection, generation);
    if (!this.tables.has(name) && create) this.tables.set(name, new Map());
    return this.tables.get(name);
  }

  moveCheckpoint(key: string, position: number): void {
    this.positions.set(key, Math.max(this.positions.get(key) ?? -1, position));
  }

  /** The generation parts of this store, for MemoryGenerations only. */
  get internals() {
    return { tables: this.tables, positions: this.positions, active: this.active };
  }
}

class MemoryGenerations implements Generations {
  constructor(private readonly store: MemoryReadStore) {}

  async active(projections: readonly string[]): Promise<Map<string, number>> {
    return new Map(projections.map((name) => [name, this.store.activeOf('p', name)]));
  }

  async list(collections: readonly string[]): Promise<Map<string, { active: number; existing: number[] }>> {
    const { tables } = this.store.internals;
    return new Map(
      collections.map((name) => {
        const existing = [...tables.keys()].flatMap((table) => {
          if (table === name) return [0];
          const match = table.startsWith(`${name}__g`) ? /^\d+$/.exec(table.slice(name.length + 3)) : null;
          return match ? [Number(match[0])] : [];
        });
        return [name, { active: this.store.activeOf('c', name), existing: existing.sort((a, b) => a - b) }];
      }),
    );
  }

  async prepare(definitions: readonly CollectionDefinition[], generation: number): Promise<void> {
    for (const definition of definitions) this.store.tableOf(definition.name, generation);
  }

  async load(batch: GenerationLoad): Promise<void> {
    for (const { collection, document } of batch.writes) {
      const table = this.store.tableOf(collection, batch.generation, false);
      if (!table) throw new Error(`Generation ${batch.generation} of ${collection} is not prepared`);
      table.set(document.id, structuredClone(document));
    }
    for (const [name, position] of batch.checkpoints)
      this.store.moveCheckpoint(generationCheckpoint(name, batch.generation), position);
  }

  async finish(): Promise<void> {}

  async getStored(
    collection: string,
    generation: number,
    ids: readonly string[],
  ): Promise<Map<string, StoredDocument<unknown>>> {
    const table = this.store.tableOf(collection, generation, false);
    const found = new Map<string, StoredDocument<unknown>>();
    for (const id of ids) {
      const stored = table?.get(id);
      if (stored) found.set(id, structuredClone(stored));
    }
    return found;
  }

  async switchTo(set: GenerationSet): Promise<SwitchResult> {
    const { positions, active } = this.store.internals;
    const from = new Map(set.projections.map((name) => [name, this.store.activeOf('p', name)]));
    const behind = new Map<string, number>();
    for (const [name, generation] of from) {
      if (generation === set.generation) throw new Error(`Generation ${set.generation} of ${name} is already active`);
      const now = positions.get(generationCheckpoint(name, generation)) ?? -1;
      if (now > (positions.get(generationCheckpoint(name, set.generation)) ?? -1)) behind.set(name, now);
    }
    if (behind.size > 0) return { switched: false, behind };
    for (const name of set.projections) active.set(`p:${name}`, set.generation);
    for (const name of set.collections) active.set(`c:${name}`, set.generation);
    return { switched: true, from };
  }

  async drop(set: GenerationSet): Promise<void> {
    for (const name of set.collections)
      if (this.store.activeOf('c', name) === set.generation)
        throw new Error(`Generation ${set.generation} of ${name} is active`);
    const { tables, positions } = this.store.internals;
    for (const name of set.collections) tables.delete(physicalName(name, set.generation));
    for (const name of set.projections) positions.delete(generationCheckpoint(name, set.generation));
  }
}

class MemoryCollection<T> implements ReadCollection<T> {
  constructor(
    readonly definition: CollectionDefinition,
    private readonly table: () => Table,
  ) {}

  async get(id: string): Promise<T | null> {
    const doc = this.table().get(id)?.doc;
    return doc ? (structuredClone(doc) as T) : null;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, StoredDocument<T>>> {
    const found = new Map<string, StoredDocument<T>>();
    for (const id of ids) {
      const stored = this.table().get(id);
      if (stored) found.set(id, structuredClone(stored) as StoredDocument<T>);
    }
    return found;
  }

  async scan(after: string | null, limit: number): Promise<StoredDocument<T>[]> {
    const ids = [...this.table().keys()].filter((id) => after === null || id > after).sort();
    return ids.slice(0, limit).map((id) => structuredClone(this.table().get(id)!) as StoredDocument<T>);
  }

  async find(query: Query): Promise<T[]> {
    let rows = this.live().filter((r) => matches(r.doc, query));
    if (query.sort) rows = rows.sort(compareBy(query.sort.field, query.sort.order));
    const offset = query.offset ?? 0;
    return rows
      .slice(offset, offset + (query.limit ?? Number.MAX_SAFE_INTEGER))
      .map((r) => structuredClone(r.doc) as T);
  }

  async count(query: Omit<Query, 'sort' | 'offset' | 'limit'>): Promise<number> {
    return this.live().filter((r) => matches(r.doc, query)).length;
  }

  private live(): { id: string; doc: Record<string, unknown> }[] {
    const rows: { id: string; doc: Record<string, unknown> }[] = [];
    for (const stored of this.table().values())
      if (stored.doc) rows.push({ id: stored.id, doc: stored.doc as Record<string, unknown> });
    return rows;
  }
}
