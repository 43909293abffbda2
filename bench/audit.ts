/**
 * Audit event pages over 1,000,000 events of one organization (the worst case for its indexes) in the
 * embedded SQLite read store, through the audit service (the HTTP layer adds well under a millisecond):
 * the first page, a page deep in the cursor, and pages filtered by type, by actor and by a time range.
 * The event index is filled by its projection's own evolve, committed directly (this measures queries,
 * not projection speed; bench/core.ts measures that). Target: p95 within 20 ms.
 *
 *   npx tsx bench/audit.ts [--events 1000000] [--repeat 30] [--limit 100]
 */
import { join } from 'node:path';
import { AuditService, type AuditQuery } from '../application/audit/audit-service';
import type { RecordedEvent } from '../domain/shared/recorded-event';
import { SqliteReadStore } from '../infrastructure/sqlite/sqlite-read-store';
import { eventIndexId, eventIndexProjection, type EventIndexDocument } from '../projections/audit/event-index';
import { tempDir } from '../tests/support/temp-dir';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 1_000_000);
const REPEAT = arg('repeat', 30);
const LIMIT = arg('limit', 100);
const TYPES = ['CallQueued', 'CallDialed', 'CallRinging', 'CallAnswered', 'CallEnded', 'SpeechRequestStarted'];
const ACTORS = Array.from({ length: 20 }, (_, i) => `clerk-${i}@acme.example`);
const START = Date.UTC(2026, 0, 1);
/** 90 days over the history, ten events per recorded instant (a group commit stamps one time). */
const recordedAt = (n: number) =>
  new Date(START + Math.floor(n / 10) * Math.floor((90 * 86_400_000) / (EVENTS / 10))).toISOString();

function event(n: number): RecordedEvent {
  const callId = `call-${Math.floor(n / 5)}`;
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    type: TYPES[n % TYPES.length]!,
    data: { callId, at: recordedAt(n), to: `+9198${String(10_000_000 + (n % 200_000))}` },
    metadata: {
      organizationId: 'org-1',
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

const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function main() {
  console.log(`events: ${EVENTS.toLocaleString('en')} of one organization; ${REPEAT} runs of each page of ${LIMIT}`);
  const dir = tempDir('bench-audit-');
  const reads = new SqliteReadStore(join(dir.path, 'read.db'));
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
  const audit = new AuditService(index, () => reads.checkpoint(eventIndexProjection.name));
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
  await reads.close();
  dir.remove();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
