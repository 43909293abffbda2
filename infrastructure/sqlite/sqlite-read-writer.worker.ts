/**
 * The SQLite read store's writer thread: projection commits (documents, counters and checkpoint in
 * one transaction) and resets run here, so index upkeep and JSON rows stay off the thread that serves
 * requests. Messages are handled in order, so commits land in the order they were made.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { CollectionDefinition } from '../../application/ports/read-store';
import {
  column,
  counterKey,
  countersOf,
  LAYOUT,
  openReadDatabase,
  tablesOf,
  valuesOf,
  type MetaRow,
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
const saveCheckpoint = db.prepare(`INSERT OR REPLACE INTO checkpoints_${LAYOUT} (projection, position) VALUES (?, ?)`);

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
  const before = writer.counters.length > 0 ? writer.meta.get(w.id) : undefined;
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
  // A commit of a thousand log entries moves the same few counters a thousand times: summed first.
  const deltas: Deltas = new Map();
  for (const w of c.writes) write(w, deltas);
  for (const d of deltas.values()) if (d.n !== 0) counterDelta.run(d.collection, d.label, d.key, d.n);
  saveCheckpoint.run(c.projection, c.checkpoint);
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
    if (message.kind === 'declare') declare(message.definition);
    else if (message.kind === 'commit') commit(message.commit);
    else reset(message.projection, message.collections);
  } catch (error) {
    reply = { kind: 'done', id: message.id, error: String(error) };
  }
  parentPort!.postMessage(reply);
});
