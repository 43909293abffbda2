/**
 * Verifies read models: rebuilds them into a scratch read store, each projection up to exactly the
 * live one's checkpoint (read first), and compares every document of their collections with the live
 * ones (docs/projection-rebuild.md). A live document at a later position than that changed after the
 * checkpoint was read (the service runs on) and is not compared; a tombstone and no document are the
 * same to a reader. Differences are reported field by field.
 */
import type { AnyProjection, CollectionDefinition } from '../../projections/projection';
import type { EventStore } from '../ports/event-store';
import type { ReadStore, StoredDocument } from '../ports/read-store';
import { GenerationBuilder, type DerivedFeed, type BuildProgress } from './generation-builder';
import { select } from './selection';

export type Difference =
  | { collection: string; id: string; kind: 'field'; path: string; live?: unknown; rebuilt?: unknown }
  /** `missing-in-rebuilt`: the live read model has a document the events do not make; `missing-in-live`: the reverse. */
  | {
      collection: string;
      id: string;
      kind: 'missing-in-live' | 'missing-in-rebuilt';
      live?: unknown;
      rebuilt?: unknown;
    };

export type VerifyReport = {
  projections: string[];
  /** The live checkpoint each projection was verified at. */
  checkpoints: Record<string, number>;
  /** Documents compared per collection. */
  compared: Record<string, number>;
  /** Live documents that changed after the checkpoints were read, so not compared. */
  skipped: number;
  events: number;
  seconds: number;
  differences: Difference[];
};

export type VerifyOptions = {
  events: EventStore;
  live: ReadStore;
  /** An empty read store the rebuild goes into. */
  scratch: ReadStore;
  all: readonly AnyProjection[];
  names?: readonly string[];
  /** The feed a projection reads, by name, when it does not read the log's events (the analytics rollups). */
  feeds?: ReadonlyMap<string, DerivedFeed>;
  onProgress?: (progress: BuildProgress & { head: number }) => void;
  builder?: { pageSize?: number; flushEvery?: number; cacheLimit?: number };
};

const PAGE = 1000;

export async function verifyProjections(options: VerifyOptions): Promise<VerifyReport> {
  const started = performance.now();
  const { projections, collections } = select(options.all, options.names ?? []);
  const names = projections.map((p) => p.name);
  const checkpoints = await options.live.checkpoints(names);
  const head = Math.max(-1, ...checkpoints.values());
  // Generation 0 of an empty store: once built, its collections read it as they would any read model.
  await options.scratch.generations.prepare(collections, 0);
  const builder = new GenerationBuilder({
    events: options.events,
    target: options.scratch,
    projections,
    generation: 0,
    until: checkpoints,
    ...(options.feeds && { feeds: options.feeds }),
    ...options.builder,
    onProgress: (progress) => options.onProgress?.({ ...progress, head }),
  });
  await builder.buildTo(head);
  const differences: Difference[] = [];
  const compared: Record<string, number> = {};
  let skipped = 0;
  for (const definition of collections) {
    // A document written after the earliest checkpoint of the projections that fill it is not compared.
    const limit = Math.min(
      ...projections.filter((p) => p.collection.name === definition.name).map((p) => checkpoints.get(p.name) ?? -1),
    );
    const result = await compare(definition, options.live, options.scratch, limit, differences);
    compared[definition.name] = result.compared;
    skipped += result.skipped;
  }
  return {
    projections: names,
    checkpoints: Object.fromEntries(checkpoints),
    compared,
    skipped,
    events: builder.events,
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    differences,
  };
}

/** Live documents against the rebuilt ones, then rebuilt documents the live read model lacks. */
async function compare(
  definition: CollectionDefinition,
  live: ReadStore,
  scratch: ReadStore,
  limit: number,
  differences: Difference[],
): Promise<{ compared: number; skipped: number }> {
  const collection = definition.name;
  const liveDocs = await live.collection<unknown>(definition);
  const rebuiltDocs = await scratch.collection<unknown>(definition);
  let compared = 0;
  let skipped = 0;
  for await (const page of pages(liveDocs)) {
    const rebuilt = await rebuiltDocs.getStored(page.map((d) => d.id));
    for (const stored of page) {
      if (stored.position > limit) {
        skipped++;
        continue;
      }
      compared++;
      const other = rebuilt.get(stored.id)?.doc ?? null;
      if (stored.doc === null && other === null) continue;
      if (other === null) differences.push({ collection, id: stored.id, kind: 'missing-in-rebuilt', live: stored.doc });
      else if (stored.doc === null)
        differences.push({ collection, id: stored.id, kind: 'missing-in-live', rebuilt: other });
      else
        for (const d of diff(stored.doc, other, ''))
          differences.push({ collection, id: stored.id, kind: 'field', ...d });
    }
  }
  for await (const page of pages(rebuiltDocs)) {
    const found = await liveDocs.getStored(page.map((d) => d.id));
    for (const stored of page)
      if (stored.doc !== null && !found.has(stored.id)) {
        compared++;
        differences.push({ collection, id: stored.id, kind: 'missing-in-live', rebuilt: stored.doc });
      }
  }
  return { compared, skipped };
}

async function* pages(collection: {
  scan: (after: string | null, limit: number) => Promise<StoredDocument<unknown>[]>;
}) {
  for (let after: string | null = null; ;) {
    const page = await collection.scan(after, PAGE);
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

type FieldDifference = { path: string; live?: unknown; rebuilt?: unknown };

/** Where two JSON values differ, by path (`a.b`, `list[2]`); an absent value has no key. */
export function diff(live: unknown, rebuilt: unknown, path: string): FieldDifference[] {
  if (Object.is(live, rebuilt)) return [];
  const bothArrays = Array.isArray(live) && Array.isArray(rebuilt);
  const bothObjects = isObject(live) && isObject(rebuilt);
  if (bothArrays) {
    const a = live as unknown[];
    const b = rebuilt as unknown[];
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => {
      const at = `${path}[${i}]`;
      if (i >= a.length) return [{ path: at, rebuilt: b[i] }];
      if (i >= b.length) return [{ path: at, live: a[i] }];
      return diff(a[i], b[i], at);
    }).flat();
  }
  if (bothObjects) {
    const a = live as Record<string, unknown>;
    const b = rebuilt as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
      (k) => a[k] !== undefined || b[k] !== undefined,
    );
    return keys.flatMap((key) => {
      const at = path ? `${path}.${key}` : key;
      if (a[key] === undefined) return [{ path: at, rebuilt: b[key] }];
      if (b[key] === undefined) return [{ path: at, live: a[key] }];
      return diff(a[key], b[key], at);
    });
  }
  return [{ path: path || '(document)', live, rebuilt }];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
