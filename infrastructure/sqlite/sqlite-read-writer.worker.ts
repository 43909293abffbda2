/**
 * The SQLite read store's writer thread: projection commits (documents, counters and checkpoint in
 * one transaction) and resets run here, so index upkeep and JSON rows stay off the thread that serves
 * requests. Messages are handled in order, so commits land in the order they were made.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { FencedOutError, stillHeld, take, type Lease } from '../../application/ports/leases';
import type { CollectionDefinition } from '../../application/ports/read-store';
import {
  leaseOf,
  column,
  counterKey,
  countersOf,
  LAYOUT,
  openReadDatabase,
  tablesOf,
  valuesOf,
  type MetaRow,
  type LeaseRequest,
  type LeaseRow,
  type PreparedCommit,
  type ReadWriterMessage,
  type ReadWriterReply,
  type RowWrite,
} from './sqlite-read-schema';

const db = openReadDatabase(workerData.file as string);

type Writer = {
  fields: string[];
  counters: string[][];
  meta: Database.Statement<[string], MetaRow>;
  upsertRow: Database.Statement;
  upsertDoc: Database.Statement;
  deleteDoc: Database.Statement;
};
const writers = new Map<string, Writer>();

function declare(definition: CollectionDefinition): void {
  const { rows, docs } = tablesOf(definition.name);
  const fields = Object.keys(definition.fields);
  const cols = fields.map(column);
  writers.set(definition.name, {
    fields,
    counters: countersOf(definition),
    meta: db.prepare(`SELECT * FROM ${rows} WHERE id = ?`),
    // An upsert, not a replace: SQLite then rewrites only the index entries of columns that changed.
    upsertRow: db.prepare(
      `INSERT INTO ${rows} (id, position, version, live${cols.map((c) => `, ${c}`).join('')}) VALUES (?, ?, ?, ?${cols.map(() => ', ?').join('')}) ` +
        `ON CONFLICT (id) DO UPDATE SET position = excluded.position, version = excluded.version, live = excluded.live${cols.map((c) => `, ${c} = excluded.${c}`).join('')}`,
    ),
    // An upsert keeps the row where it is; REPLACE would delete it and insert it again.
    upsertDoc: db.prepare(
      `INSERT INTO ${docs} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
    ),
    deleteDoc: db.prepare(`DELETE FROM ${docs} WHERE id = ?`),
  });
}

const counterDelta = db.prepare(
  `INSERT INTO counters_${LAYOUT} (collection, counter, key, n) VALUES (?, ?, ?, ?) ON CONFLICT (collection, counter, key) DO UPDATE SET n = n + excluded.n`,
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

function write(w: RowWrite, deltas: Deltas): void {
  const writer = writers.get(w.collection);
  if (!writer) throw new Error(`Unknown collection ${w.collection}`);
  const live = w.json !== null;
  const before = writer.meta.get(w.id);
  // A document at a later position was written by a writer ahead of this one: it stays.
  if (before && before.position > w.position) return;
  writer.upsertRow.run(w.id, w.position, w.version, live ? 1 : 0, ...w.values);
  if (live) writer.upsertDoc.run(w.id, w.json);
  else writer.deleteDoc.run(w.id);
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
    if (was !== null) count(deltas, w.collection, label, was, -1);
    if (is !== null) count(deltas, w.collection, label, is, 1);
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
  // A commit of a thousand log entries moves the same few counters a thousand times: summed first.
  const deltas: Deltas = new Map();
  for (const w of c.writes) write(w, deltas);
  for (const d of deltas.values()) if (d.n !== 0) counterDelta.run(d.collection, d.label, d.key, d.n);
  saveCheckpoints.run(c.checkpoint, JSON.stringify(c.projections));
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
    const { rows, docs } = tablesOf(name);
    db.exec(`DELETE FROM ${rows}; DELETE FROM ${docs};`);
    db.prepare(`DELETE FROM counters_${LAYOUT} WHERE collection = ?`).run(name);
  }
  db.prepare(`DELETE FROM checkpoints_${LAYOUT} WHERE projection = ?`).run(projection);
});

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
    else reset.immediate(message.projection, message.collections);
  } catch (error) {
    reply = {
      kind: 'done',
      id: message.id,
      error: String(error),
      ...(typeof (error as { code?: unknown }).code === 'string' && { code: (error as { code: string }).code }),
      ...(error instanceof FencedOutError && { fenced: error.lease }),
    };
  }
  parentPort!.postMessage(reply);
});
