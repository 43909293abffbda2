/** Read store held in memory; queries are evaluated by scanning, which is fine at test sizes. */
import { compareBy, matches } from '../../application/query-match';
import { FencedOutError } from '../../application/ports/leases';
import { MemoryLeaseStore } from './memory-lease-store';
import { projectionsOf } from '../../application/ports/read-store';
import type {
  CollectionDefinition,
  ProjectionCommit,
  Query,
  ReadCollection,
  ReadStore,
  StoredDocument,
} from '../../application/ports/read-store';

type Table = Map<string, StoredDocument<unknown>>;

export class MemoryReadStore implements ReadStore {
  private readonly tables = new Map<string, Table>();
  private readonly positions = new Map<string, number>();
  readonly leases = new MemoryLeaseStore();

  async collection<T>(definition: CollectionDefinition): Promise<ReadCollection<T>> {
    if (!this.tables.has(definition.name)) this.tables.set(definition.name, new Map());
    return new MemoryCollection<T>(definition, () => this.tables.get(definition.name)!);
  }

  async commit(batch: ProjectionCommit): Promise<void> {
    for (const fence of batch.fences ?? [])
      if (this.leases.tokenOf(fence.lease) !== fence.token) throw new FencedOutError(fence.lease);
    for (const { collection } of batch.writes)
      if (!this.tables.has(collection)) throw new Error(`Unknown collection ${collection}`);
    for (const { collection, document } of batch.writes) {
      const table = this.tables.get(collection)!;
      if ((table.get(document.id)?.position ?? -1) > document.position) continue;
      table.set(document.id, structuredClone(document));
    }
    for (const name of projectionsOf(batch))
      this.positions.set(name, Math.max(this.positions.get(name) ?? -1, batch.checkpoint));
  }

  async checkpoint(projection: string): Promise<number> {
    return this.positions.get(projection) ?? -1;
  }

  async checkpoints(projections: readonly string[]): Promise<Map<string, number>> {
    return new Map(projections.map((name) => [name, this.positions.get(name) ?? -1]));
  }

  async reset(projection: string, collections: readonly string[]): Promise<void> {
    for (const name of collections) this.tables.get(name)?.clear();
    this.positions.delete(projection);
  }

  async close(): Promise<void> {}
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
