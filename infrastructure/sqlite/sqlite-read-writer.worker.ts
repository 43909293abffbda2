/**
 * The SQLite read store's writer thread: projection commits (documents, counters and checkpoint in
 * one transaction) and resets run here, so index upkeep and JSON rows stay off the thread that serves
 * requests. Messages are handled in order, so commits land in the order they were made.
 *
 * A commit writes into the generation of each collection that is active when its transaction runs
 * (or the one a rebuild builds), and moves each projection's checkpoint in its active generation: the
 * switch of a rebuild (also here, in a transaction of its own) takes SQLite's write lock as commits do,
 * so a commit lands wholly before it or wholly after it (docs/projection-rebuild.md).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { FencedOutError, stillHeld, take, type Lease } from '../../application/ports/leases';
import type { CollectionDefinition } from '../../application/ports/read-store';
import { generationCheckpoint, GenerationChangedError, physicalName } from '../../application/ports/read-store';
import {
  leaseOf,
  column,
  counterKey,
  countCounters,
  countersOf,
  createIndexes,
  createTables,
  docKeyOf,
  inGeneration,
  LAYOUT,
  loadedIndex,
  openReadDatabase,
  tablesOf,
  valuesOf,
  type GenerationRequest,
  type MetaRow,
  type LeaseRequest,
  type LeaseRow,
  type PackedRows,
  type PreparedCommit,
  type PreparedLoad,
  type ReadWriterMessage,
  type ReadWriterReply,
  type RowWrite,
  type SqlValue,
  type SwitchReply,
} from './sqlite-read-schema';

const db = openReadDatabase(workerData.file as string);
/** Collections as declared, by their own name; their generations' statements are prepared when first written. */
const definitions = new Map<string, CollectionDefinition>();

type Writer = {
  /** The physical name: counters are kept per generation. */
  name: string;
  fields: string[];
  counters: string[][];
  /** Positions in `fields` of the fields some counter counts by. */
  counted: number[];
  meta: Database.Statement<[string], MetaRow>;
  /** Of `n` rows at once (with their documents' numbers where documents have them): one statement, not `n`. */
  upsertRows: (n: number) => Database.Statement;
} & (
  | {
      key: 'ref';
      /** A new document (its number is the rowid returned), or a living one changed in place. */
      insertDoc: Database.Statement;
      updateDoc: Database.Statement;
      /** `n` documents at once, numbered by the load after the last one. */
      insertDocs: (n: number) => Database.Statement;
      lastRef: Database.Statement<[], number | null>;
    }
  | { key: 'id'; upsertDoc: Database.Statement; deleteDoc: Database.Statement }
);
/** By physical name (the collection's name in its generation). */
const writers = new Map<string, Writer>();

/**
 * Generations (by physical name) prepared empty whose counted fields have held, so far, only values
 * SQLite keys as JavaScript does: their counters are then counted by SQLite alone, without a second scan
 * per counter for the others (sqlite-read-schema.ts, `countCounters`).
 */
const sqlKeyed = new Set<string>();
const sqlKeys = (value: SqlValue) => typeof value !== 'number' || Number.isSafeInteger(value);

const activeGeneration = db
  .prepare<[string, string], number>(`SELECT generation FROM generations_${LAYOUT} WHERE kind = ? AND name = ?`)
  .pluck();
const generationOf = (kind: 'p' | 'c', name: string): number => activeGeneration.get(kind, name) ?? 0;
const checkpointOf = db
  .prepare<[string], number>(`SELECT position FROM checkpoints_${LAYOUT} WHERE projection = ?`)
  .pluck();
const saveGeneration = db.prepare(
  `INSERT INTO generations_${LAYOUT} (kind, name, generation) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET generation = excluded.generation`,
);

/** The writer of a collection's generation, its statements prepared on first use. */
function writerOf(collection: string, generation: number): Writer {
  const name = physicalName(collection, generation);
  const known = writers.get(name);
  if (known) return known;
  const definition = definitions.get(collection);
  if (!definition) throw new Error(`Unknown collection ${collection}`);
  const writer = prepareWriter(inGeneration(definition, generation));
  writers.set(name, writer);
  return writer;
}

/** Statements by the number of rows they write, prepared on first use (a load's last ones are fewer). */
function bySize(sql: (n: number) => string): (n: number) => Database.Statement {
  const prepared = new Map<number, Database.Statement>();
  return (n) => {
    let statement = prepared.get(n);
    if (!statement) prepared.set(n, (statement = db.prepare(sql(n))));
    return statement;
  };
}

const placeholders = (n: number, width: number) =>
  Array.from({ length: n }, () => `(${Array.from({ length: width }, () => '?').join(', ')})`).join(', ');

function prepareWriter(definition: CollectionDefinition): Writer {
  const tables = tablesOf(definition.name);
  const { rows, docs } = tables;
  const fields = Object.keys(definition.fields);
  const key = docKeyOf(db, tables);
  const counters = countersOf(definition);
  const cols = ['id', 'position', 'version', 'live', ...(key === 'ref' ? ['ref'] : []), ...fields.map(column)];
  const common = {
    name: definition.name,
    fields,
    counters,
    counted: fields.flatMap((f, i) => (counters.some((c) => c.includes(f)) ? [i] : [])),
    meta: db.prepare<[string], MetaRow>(`SELECT * FROM ${rows} WHERE id = ?`),
    upsertRows: bySize(
      (n) =>
        // An upsert, not a replace: SQLite then rewrites only the index entries of columns that changed.
        `INSERT INTO ${rows} (${cols.join(', ')}) VALUES ${placeholders(n, cols.length)} ` +
        `ON CONFLICT (id) DO UPDATE SET ${cols
          .slice(1)
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`,
    ),
  };
  if (key === 'id')
    return {
      ...common,
      key,
      // An upsert keeps the row where it is; REPLACE would delete it and insert it again.
      upsertDoc: db.prepare(
        `INSERT INTO ${docs} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
      ),
      deleteDoc: db.prepare(`DELETE FROM ${docs} WHERE id = ?`),
    };
  return {
    ...common,
    key,
    insertDoc: db.prepare(`INSERT INTO ${docs} (id, doc) VALUES (?, ?)`),
    updateDoc: db.prepare(`UPDATE ${docs} SET doc = ? WHERE ref = ?`),
    insertDocs: bySize((n) => `INSERT INTO ${docs} (ref, id, doc) VALUES ${placeholders(n, 3)}`),
    lastRef: db.prepare<[], number | null>(`SELECT max(ref) FROM ${docs}`).pluck(),
  };
}

function declare(definition: CollectionDefinition): void {
  const known = definitions.get(definition.name);
  definitions.set(definition.name, definition);
  // A changed declaration (a column added) needs statements prepared again.
  if (known && JSON.stringify(known) !== JSON.stringify(definition))
    for (const name of [...writers.keys()])
      if (name === definition.name || name.startsWith(`${definition.name}__g`)) writers.delete(name);
}

const counterDelta = db.prepare(
  `INSERT INTO counters_${LAYOUT} (collection, counter, key, n) VALUES (?, ?, ?, ?) ON CONFLICT (collection, counter, key) DO UPDATE SET n = n + excluded.n`,
);
// A counter down to zero is removed (a missing one reads 0): its key may be personal data (the logs'
// count per number), which must not outlive the entries an erasure changed (docs/privacy.md).
const dropEmptyCounter = db.prepare(
  `DELETE FROM counters_${LAYOUT} WHERE collection = ? AND counter = ? AND key = ? AND n = 0`,
);
// A checkpoint only moves forwards: a writer that fell behind cannot take it back. Every projection of
// a commit in one statement (a JSON array of names): a commit carries the checkpoints of all it runs.
const saveCheckpoints = db.prepare<[number, string]>(
  `INSERT INTO checkpoints_${LAYOUT} (projection, position) SELECT value, ? FROM json_each(?) WHERE true ` +
    'ON CONFLICT (projection) DO UPDATE SET position = max(position, excluded.position)',
);
const leaseRow = db.prepare<[string], LeaseRow>('SELECT * FROM leases WHERE name = ?');
// How many of a commit's fences (a JSON array of [lease, token]) still hold, in one statement.
const fencesHolding = db
  .prepare<[string], number>(
    'SELECT COUNT(*) FROM json_each(?) AS f JOIN leases ON leases.name = f.value ->> 0 AND leases.token = f.value ->> 1',
  )
  .pluck();
const saveLease = db.prepare('INSERT OR REPLACE INTO leases (name, owner, token, expires_at) VALUES (?, ?, ?, ?)');

/** Counter changes of one commit, summed per counter value and applied once at its end. */
type Deltas = Map<string, { collection: string; label: string; key: string; n: number }>;

function count(deltas: Deltas, collection: string, label: string, key: string, n: number): void {
  const id = `${collection}\u0000${label}\u0000${key}`;
  const known = deltas.get(id);
  if (known) known.n += n;
  else deltas.set(id, { collection, label, key, n });
}

function write(w: RowWrite, generation: number, deltas: Deltas): void {
  const writer = writerOf(w.collection, generation);
  if (sqlKeyed.size > 0) sqlKeyed.delete(writer.name);
  const live = w.json !== null;
  const before = writer.meta.get(w.id);
  // A document at a later position was written by a writer ahead of this one: it stays.
  if (before && before.position > w.position) return;
  if (writer.key === 'ref') {
    // A living document keeps its number; a tombstone's row names none, which deletes the document.
    let ref = live ? (before?.ref ?? null) : null;
    if (ref !== null) writer.updateDoc.run(w.json, ref);
    else if (live) ref = Number(writer.insertDoc.run(w.id, w.json).lastInsertRowid);
    writer.upsertRows(1).run(w.id, w.position, w.version, live ? 1 : 0, ref, ...w.values);
  } else {
    writer.upsertRows(1).run(w.id, w.position, w.version, live ? 1 : 0, ...w.values);
    if (live) writer.upsertDoc.run(w.id, w.json);
    else writer.deleteDoc.run(w.id);
  }
  for (const counter of writer.counters) {
    const label = counter.join(',');
    const was = before?.live
      ? counterKey(
          counter,
          valuesOf(counter, (f) => before[column(f)] ?? null),
        )
      : null;
    const is = live
      ? counterKey(
          counter,
          valuesOf(counter, (f) => w.values[writer.fields.indexOf(f)] ?? null),
        )
      : null;
    // Most updates leave a counter's fields alone: then its count does not move.
    if (was === is) continue;
    if (was !== null) count(deltas, writer.name, label, was, -1);
    if (is !== null) count(deltas, writer.name, label, is, 1);
  }
}

const commit = db.transaction((c: PreparedCommit) => {
  // Checked in the commit's own transaction: a lease cannot change hands between the check and the writes.
  if (
    c.fences.length > 0 &&
    fencesHolding.get(JSON.stringify(c.fences.map((f) => [f.lease, f.token]))) !== c.fences.length
  )
    for (const fence of c.fences)
      if (leaseRow.get(fence.lease)?.token !== fence.token) throw new FencedOutError(fence.lease);
  // The generations as they are now, under the write lock: a switch is wholly before or after.
  const generations = new Map(c.projections.map((name) => [name, c.building ?? generationOf('p', name)]));
  const changed = Object.entries(c.generations ?? {})
    .filter(([name, generation]) => (c.building ?? generationOf('p', name)) !== generation)
    .map(([name]) => name);
  if (changed.length > 0) throw new GenerationChangedError(changed);
  const collections = new Map<string, number>();
  const generationOfCollection = (name: string) => {
    let generation = collections.get(name);
    if (generation === undefined) collections.set(name, (generation = c.building ?? generationOf('c', name)));
    return generation;
  };
  // A commit of a thousand log entries moves the same few counters a thousand times: summed first.
  const deltas: Deltas = new Map();
  for (const w of c.writes) write(w, generationOfCollection(w.collection), deltas);
  for (const d of deltas.values()) {
    if (d.n !== 0) counterDelta.run(d.collection, d.label, d.key, d.n);
    if (d.n < 0) dropEmptyCounter.run(d.collection, d.label, d.key);
  }
  saveCheckpoints.run(
    c.checkpoint,
    JSON.stringify(c.projections.map((name) => generationCheckpoint(name, generations.get(name)!))),
  );
});

/** Rows (and documents) a load writes per statement: each run has a cost of its own (a result object, too). */
const BULK = 50;

/**
 * A rebuild's bulk writes: the tables are new and invisible, each document is its latest state, no
 * counter is kept. Every document is inserted under a new number; one loaded before is deleted when
 * its row names the new one.
 */
const load = db.transaction((l: PreparedLoad) => {
  for (const packed of l.rows) loadRows(writerOf(packed.collection, l.generation), packed);
  for (const [name, position] of l.checkpoints)
    saveCheckpoints.run(position, JSON.stringify([generationCheckpoint(name, l.generation)]));
});

function loadRows(writer: Writer, packed: PackedRows): void {
  // A rebuild makes the tables it loads (prepare), always of this shape.
  if (writer.key !== 'ref') throw new Error(`${writer.name} keys documents by id: only new generations are loaded`);
  const width = writer.fields.length;
  let ref = writer.lastRef.get() ?? 0;
  const rows: SqlValue[] = [];
  const docs: SqlValue[] = [];
  for (let i = 0; i < packed.ids.length; i++) {
    const id = packed.ids[i]!;
    const json = packed.json[i]!;
    if (json !== null) docs.push(++ref, id, json);
    rows.push(id, packed.positions[i]!, packed.versions[i]!, json !== null ? 1 : 0, json !== null ? ref : null);
    for (let f = 0; f < width; f++) rows.push(packed.values[i * width + f]!);
    if (sqlKeyed.has(writer.name))
      for (const f of writer.counted) if (!sqlKeys(packed.values[i * width + f]!)) sqlKeyed.delete(writer.name);
    if (docs.length === BULK * 3) writer.insertDocs(BULK).run(...docs.splice(0));
    if (rows.length === BULK * (5 + width)) writer.upsertRows(BULK).run(...rows.splice(0));
  }
  if (docs.length > 0) writer.insertDocs(docs.length / 3).run(...docs);
  if (rows.length > 0) writer.upsertRows(rows.length / (5 + width)).run(...rows);
}

/**
 * Pages a rebuild touches stay in memory, and its index builds sort in memory. (SQLite's sorter lends a
 * sort to helper threads only when it spills to temporary files, which it never does in memory:
 * `PRAGMA threads` changed nothing, and sorting through files was slower.)
 */
const REBUILD_CACHE_KIB = 131_072;

function prepare(definitions: readonly CollectionDefinition[], generation: number): void {
  db.pragma(`cache_size = -${REBUILD_CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  for (const definition of definitions) declare(definition);
  createGenerationTables.immediate(definitions, generation);
}

const createGenerationTables = db.transaction((definitions: readonly CollectionDefinition[], generation: number) => {
  for (const definition of definitions) {
    const physical = inGeneration(definition, generation);
    createTables(db, physical);
    // The cheapest indexes to keep up are kept up by the loads, in the writer's idle time; the others
    // are built by `finish`, which skips these.
    createIndexes(db, physical, (index) => loadedIndex(definition.name, index));
    if (db.prepare(`SELECT 1 FROM ${tablesOf(physical.name).rows} LIMIT 1`).get()) sqlKeyed.delete(physical.name);
    else sqlKeyed.add(physical.name);
  }
});

/**
 * The pages a generation's indexes and counters take (about 160 MB for a million events) are
 * written to the write-ahead log when `finish` commits; copying them into the file (a checkpoint, which
 * SQLite otherwise runs at that commit) waits until the switch is answered, so the new read models serve
 * that much sooner. Should no switch come (the rebuild failed), checkpoints resume after a while anyway.
 */
const CHECKPOINT_DEFER_MAX_MS = 60_000;
let deferredCheckpoints: { autocheckpoint: number; timer: NodeJS.Timeout } | null = null;

function deferCheckpoints(): void {
  if (deferredCheckpoints) return;
  const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  const timer = setTimeout(resumeCheckpoints, CHECKPOINT_DEFER_MAX_MS);
  timer.unref();
  deferredCheckpoints = { autocheckpoint, timer };
}

function resumeCheckpoints(): void {
  if (!deferredCheckpoints || !db.open) return;
  clearTimeout(deferredCheckpoints.timer);
  db.pragma(`wal_autocheckpoint = ${deferredCheckpoints.autocheckpoint}`);
  deferredCheckpoints = null;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The file is busy: the next commit checkpoints.
  }
}

const finish = db.transaction((definitions: readonly CollectionDefinition[], generation: number) => {
  for (const definition of definitions) {
    const physical = inGeneration(definition, generation);
    createIndexes(db, physical);
    countCounters(db, physical, { sqlKeysOnly: sqlKeyed.delete(physical.name) });
  }
});

/** The switch: every projection's checkpoint in the new generation at least where the active one is, or nothing. */
const switchTo = db.transaction((set: GenerationRequest): SwitchReply => {
  const from = set.projections.map((name) => [name, generationOf('p', name)] as [string, number]);
  const behind: [string, number][] = [];
  for (const [name, generation] of from) {
    if (generation === set.generation) throw new Error(`Generation ${set.generation} of ${name} is already active`);
    const now = checkpointOf.get(generationCheckpoint(name, generation)) ?? -1;
    if (now > (checkpointOf.get(generationCheckpoint(name, set.generation)) ?? -1)) behind.push([name, now]);
  }
  if (behind.length > 0) return { switched: false, positions: behind };
  for (const name of set.projections) saveGeneration.run('p', name, set.generation);
  for (const name of set.collections) saveGeneration.run('c', name, set.generation);
  return { switched: true, positions: from };
});

const drop = db.transaction((set: GenerationRequest) => {
  for (const name of set.collections)
    if (generationOf('c', name) === set.generation)
      throw new Error(`Generation ${set.generation} of ${name} is active`);
  for (const name of set.collections) {
    const physical = physicalName(name, set.generation);
    const { rows, docs } = tablesOf(physical);
    writers.delete(physical);
    sqlKeyed.delete(physical);
    db.exec(`DROP TABLE IF EXISTS ${rows}; DROP TABLE IF EXISTS ${docs};`);
    db.prepare(`DELETE FROM counters_${LAYOUT} WHERE collection = ?`).run(physical);
    db.prepare(`DELETE FROM counter_sets_${LAYOUT} WHERE collection = ?`).run(physical);
  }
  for (const name of set.projections)
    db.prepare(`DELETE FROM checkpoints_${LAYOUT} WHERE projection = ?`).run(
      generationCheckpoint(name, set.generation),
    );
});

/** Lease changes, each in a transaction of its own; the clock is this machine's (every process on it shares it). */
const lease = db.transaction((request: LeaseRequest): Lease | null => {
  const now = Date.now();
  const name = request.op === 'acquire' ? request.name : request.lease.name;
  const row = leaseRow.get(name);
  const held = row && leaseOf(row);
  let next: Lease | null = null;
  if (request.op === 'acquire') next = take(held, name, request.owner, request.ttlMs, now);
  else if (stillHeld(held, request.lease))
    next = { ...held, expiresAt: request.op === 'renew' ? now + request.ttlMs : now - 1 };
  if (next) saveLease.run(next.name, next.owner, next.token, next.expiresAt);
  return next;
});

const reset = db.transaction((projection: string, collections: readonly string[]) => {
  for (const name of collections) {
    const physical = physicalName(name, generationOf('c', name));
    const { rows, docs } = tablesOf(physical);
    db.exec(`DELETE FROM ${rows}; DELETE FROM ${docs};`);
    db.prepare(`DELETE FROM counters_${LAYOUT} WHERE collection = ?`).run(physical);
  }
  db.prepare(`DELETE FROM checkpoints_${LAYOUT} WHERE projection = ?`).run(
    generationCheckpoint(projection, generationOf('p', projection)),
  );
});

/** How long a compaction waits for readers of older snapshots before it fails. */
const TRUNCATE_FOR_MS = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Old versions of pages (erased documents) live in the log, and in the file's pages the log has not been
 * copied over yet, until the log is checkpointed whole and emptied. A checkpoint cannot copy the pages a
 * reader's older snapshot still uses, and SQLite then answers it busy rather than failing: it is tried
 * again (this thread waits; a reader lets go within a statement or two) until it is whole, and fails the
 * compaction if it cannot be within TRUNCATE_FOR_MS.
 */
function truncateLog(): void {
  const until = Date.now() + TRUNCATE_FOR_MS;
  for (;;) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (!result || result.busy === 0) return;
    if (Date.now() > until) throw new Error('the read store could not empty its log: readers hold it');
    Atomics.wait(pause, 0, 0, 20);
  }
}

/**
 * No byte of an erased document left in the files: `secure_delete` zeroes a deleted cell, yet an index
 * page rebalanced as its entries change can keep a stale copy in its free space; VACUUM rebuilds every
 * page from the live rows. It writes them through the log, which the last checkpoint empties.
 */
function compact(): void {
  db.exec('VACUUM');
  truncateLog();
}

parentPort!.on('message', (message: ReadWriterMessage) => {
  if (message.kind === 'close') {
    db.close();
    parentPort!.postMessage({ kind: 'closed' } satisfies ReadWriterReply);
    return;
  }
  let reply: ReadWriterReply = { kind: 'done', id: message.id };
  try {
    // Immediate transactions take the write lock first: another process's commit cannot fail them halfway.
    if (message.kind === 'declare') declare(message.definition);
    else if (message.kind === 'commit') commit.immediate(message.commit);
    else if (message.kind === 'lease') reply = { ...reply, lease: lease.immediate(message.request) };
    else if (message.kind === 'load') load.immediate(message.load);
    else if (message.kind === 'prepare') prepare(message.definitions, message.generation);
    else if (message.kind === 'finish') {
      deferCheckpoints();
      finish.immediate(message.definitions, message.generation);
    } else if (message.kind === 'switch') {
      const switched = switchTo.immediate(message.set);
      reply = { ...reply, switched };
      // After the reply: the new read models serve while the pages are copied.
      if (switched.switched) setImmediate(resumeCheckpoints);
    } else if (message.kind === 'drop') drop.immediate(message.set);
    else if (message.kind === 'reset') reset.immediate(message.projection, message.collections);
    else if (message.kind === 'compact') compact();
  } catch (error) {
    reply = {
      kind: 'done',
      id: message.id,
      error: String(error),
      ...(typeof (error as { code?: unknown }).code === 'string' && { code: (error as { code: string }).code }),
      ...(error instanceof FencedOutError && { fenced: error.lease }),
      ...(error instanceof GenerationChangedError && { changed: [...error.projections] }),
    };
  }
  parentPort!.postMessage(reply);
});
