/**
 * Audit event pages over 1,000,000 events of one organization (the worst case for its indexes), through
 * the audit service (the HTTP layer adds well under a millisecond): the first page, a page deep in the
 * cursor, and pages filtered by type, by actor and by a time range. Target: p95 within 20 ms.
 *
 * `--source store` (the default): the embedded SQLite event store's own search, as the service reads it
 * over that store. The rows are written straight into the events table (so the recorded times can
 * span 90 days), with another organization's events in between; the store then creates its search
 * indexes as it does on opening a store written before they existed, which is timed too.
 * `--source index`: the audit's event index in the SQLite read store, as the service reads it over an
 * event store that cannot search (EventStoreDB), filled by its projection's own evolve, committed
 * directly (this measures queries, not projection speed).
 *
 *   npx tsx bench/audit.ts [--source store|index] [--events 1000000] [--repeat 30] [--limit 100]
 */
import { join } from 'node:path';
import type { AuditQuery, AuditService } from '../application/audit/audit-service';
import { EventIndexAudit } from '../application/audit/event-index-audit';
import { canSearch, EventStoreAudit } from '../application/audit/event-store-audit';
import type { RecordedEvent } from '../domain/shared/recorded-event';
import { openEventsDatabase } from '../infrastructure/sqlite/sqlite-events-schema';
import { SqliteEventStore } from '../infrastructure/sqlite/sqlite-event-store';
import { SqliteReadStore } from '../infrastructure/sqlite/sqlite-read-store';
import { eventIndexId, eventIndexProjection, type EventIndexDocument } from '../projections/audit/event-index';
import { tempDir } from '../tests/support/temp-dir';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SOURCE = process.argv[process.argv.indexOf('--source') + 1] === 'index' ? 'index' : 'store';
const EVENTS = arg('events', 1_000_000);
const REPEAT = arg('repeat', 30);
const LIMIT = arg('limit', 100);
const TYPES = ['CallQueued', 'CallDialed', 'CallRinging', 'CallAnswered', 'CallEnded', 'SpeechRequestStarted'];
const ACTORS = Array.from({ length: 20 }, (_, i) => `clerk-${i}@acme.example`);
const START = Date.UTC(2026, 0, 1);
/** 90 days over the history, ten events per recorded instant (a group commit stamps one time). */
const recordedAt = (n: number) =>
  new Date(START + Math.floor(n / 10) * Math.floor((90 * 86_400_000) / (EVENTS / 10))).toISOString();

function event(n: number, organizationId = 'org-1'): RecordedEvent {
  const callId = `call-${Math.floor(n / 5)}`;
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    type: TYPES[n % TYPES.length]!,
    data: { callId, at: recordedAt(n), to: `+9198${String(10_000_000 + (n % 200_000))}` },
    metadata: {
      organizationId,
      actor: ACTORS[n % ACTORS.length]!,
      requestId: `req-${Math.floor(n / 5)}`,
      correlationId: `req-${Math.floor(n / 5)}`,
      causationId: null,
      occurredAt: recordedAt(n),
      schemaVersion: 1,
    },
    streamId: `call-${callId}`,
    revision: n % 5,
    // Other organizations' events in between: positions leave gaps.
    position: 3 * n + 1,
    recordedAt: recordedAt(n),
  };
}

/** The events table as the store writes it: each event of org-1 followed by two of another organization. */
function fillEventStore(file: string): void {
  const db = openEventsDatabase(file);
  const insert = db.prepare(
    'INSERT INTO events (position, event_id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const write = (e: RecordedEvent) =>
    insert.run(
      e.position,
      e.id,
      e.streamId,
      e.revision,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
      e.recordedAt,
    );
  const theirs = (n: number, k: number): RecordedEvent => {
    const e = event(n, 'org-2');
    return { ...e, id: `${e.id}-${k}`, streamId: `${e.streamId}-other-${k}`, position: e.position + k };
  };
  const batch = db.transaction((from: number, to: number) => {
    for (let n = from; n < to; n++) [event(n), theirs(n, 1), theirs(n, 2)].forEach(write);
  });
  for (let start = 0; start < EVENTS; start += 10_000) batch(start, Math.min(EVENTS, start + 10_000));
  db.close();
}

/** The audit over the store's search; the store creates its indexes as it opens. */
async function storeAudit(dir: string): Promise<{ audit: AuditService; close: () => Promise<void> }> {
  const file = join(dir, 'events.db');
  const t0 = performance.now();
  fillEventStore(file);
  const t1 = performance.now();
  const store = new SqliteEventStore(file);
  console.log(
    `filled in ${((t1 - t0) / 1000).toFixed(1)} s (${(3 * EVENTS).toLocaleString('en')} rows); ` +
      `search indexes created on open in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
  );
  if (!canSearch(store)) throw new Error('the SQLite event store searches its events');
  return { audit: new EventStoreAudit(store), close: () => store.close() };
}

/** The audit over its event index in the read store. */
async function indexAudit(dir: string): Promise<{ audit: AuditService; close: () => Promise<void> }> {
  const reads = new SqliteReadStore(join(dir, 'read.db'));
  const index = await reads.collection<EventIndexDocument>(eventIndexProjection.collection);
  const t0 = performance.now();
  for (let start = 0; start < EVENTS; start += 10_000) {
    const writes = Array.from({ length: Math.min(10_000, EVENTS - start) }, (_, i) => {
      const recorded = event(start + i);
      const id = eventIndexId(recorded.position);
      const doc = eventIndexProjection.evolve(id, null, recorded);
      return { collection: index.definition.name, document: { id, doc, position: recorded.position, version: 1 } };
    });
    await reads.commit({ projection: eventIndexProjection.name, checkpoint: writes.at(-1)!.document.position, writes });
  }
  console.log(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return {
    audit: new EventIndexAudit(index, () => reads.checkpoint(eventIndexProjection.name)),
    close: () => reads.close(),
  };
}

const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function main() {
  console.log(
    `source: ${SOURCE}; events: ${EVENTS.toLocaleString('en')} of one organization; ${REPEAT} runs of each page of ${LIMIT}`,
  );
  const dir = tempDir('bench-audit-');
  const { audit, close } = await (SOURCE === 'store' ? storeAudit : indexAudit)(dir.path);
  const ctx = {
    organizationId: 'org-1',
    organizationType: 'collection' as const,
    actor: 'bench',
    requestId: 'bench',
    scopes: null,
  };

  const deep = event(Math.floor(EVENTS * 0.9)).position;
  const queries: [string, Omit<AuditQuery, 'limit'>][] = [
    ['first page', { after: -1 }],
    ['deep page (90% in)', { after: deep }],
    ['type=CallEnded', { after: -1, types: ['CallEnded'] }],
    ['type=CallEnded, deep', { after: deep, types: ['CallEnded'] }],
    ['type=CallQueued,CallEnded', { after: -1, types: ['CallQueued', 'CallEnded'] }],
    ['actor', { after: -1, actor: 'clerk-7@acme.example' }],
    ['actor + type', { after: -1, actor: 'clerk-7@acme.example', types: ['CallDialed'] }],
    [
      'time range (one day, mid-history)',
      { after: -1, startTime: '2026-02-10T00:00:00.000Z', endTime: '2026-02-10T23:59:59.999Z' },
    ],
    [
      'time range + type',
      { after: -1, types: ['CallEnded'], startTime: '2026-02-10T00:00:00.000Z', endTime: '2026-02-20T00:00:00.000Z' },
    ],
    ['request_id', { after: -1, requestId: `req-${Math.floor(EVENTS / 10)}` }],
  ];
  for (const [label, query] of queries) {
    const times: number[] = [];
    // One run first, untimed: the first touch of an index's pages reads them from disk.
    let rows = (await audit.page(ctx, { ...query, limit: LIMIT })).data.length;
    for (let i = 0; i < REPEAT; i++) {
      const t = performance.now();
      rows = (await audit.page(ctx, { ...query, limit: LIMIT })).data.length;
      times.push(performance.now() - t);
    }
    console.log(
      `${label.padEnd(36)} rows=${String(rows).padEnd(4)} p50=${pct(times, 50).toFixed(2)} ms  p95=${pct(times, 95).toFixed(2)} ms`,
    );
  }
  await close();
  dir.remove();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
