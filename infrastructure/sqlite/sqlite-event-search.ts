/**
 * The SQLite event store's search over its events' metadata (`EventStore.searchEvents`): the audit reads
 * an organization's events from here, so the embedded store pair keeps no event index of its own.
 *
 * Indexes over expressions of the metadata JSON, each leading with the organization and partial (events
 * that name none, snapshots and the service's own, are not in them). SQLite ends every index with the
 * rowid, which is the position: after the equalities, a page is one range of one index, in position
 * order, however many events the store holds besides.
 */
import type Database from 'better-sqlite3';
import type { EventSearch } from '../../application/ports/event-store';

const ORGANIZATION = "(metadata ->> '$.organizationId')";
/** What each filter compares, in the table and in the indexes. */
const COLUMNS = {
  streamId: 'stream_id',
  type: 'type',
  actor: "(metadata ->> '$.actor')",
  requestId: "(metadata ->> '$.requestId')",
} as const;
type Filter = keyof typeof COLUMNS;

/**
 * Each index leads with the organization and one filter, then the position; the filters that often go
 * with that one follow, so the index itself tells which of its entries match (one stream's or one
 * person's events of a type) and only those are read from the table. Every index costs each append
 * (it is written in the append's transaction), hence five and not one per pair. A search takes the
 * first whose leading filter it has, a request's events being the fewest; a type list is read one type
 * at a time, so each type is an equality. The search names its index (`INDEXED BY`): without
 * statistics SQLite takes the organization's index with the position range for the better one.
 */
const INDEXES: { name: string; leading?: Filter; following: Filter[] }[] = [
  { name: 'events_by_organization_request', leading: 'requestId', following: [] },
  { name: 'events_by_organization_stream', leading: 'streamId', following: ['type', 'actor'] },
  { name: 'events_by_organization_actor', leading: 'actor', following: ['type'] },
  { name: 'events_by_organization_type', leading: 'type', following: [] },
  { name: 'events_by_organization', following: [] },
];

/** How long a process opening the file waits for another one building the indexes (about 10 s per million events). */
const BUILD_WAIT_MS = 600_000;

/**
 * Creates the indexes a store opened before they existed lacks (once: over a big store it takes a
 * while, and another process opening the file meanwhile waits for it, hence the long busy timeout).
 */
export function createSearchIndexes(db: Database.Database): void {
  const existing = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all());
  const missing = INDEXES.filter(({ name }) => !existing.has(name));
  if (missing.length === 0) return;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${BUILD_WAIT_MS}`);
  try {
    db.transaction(() => {
      for (const { name, leading, following } of missing) {
        const filters = [ORGANIZATION, ...(leading ? [COLUMNS[leading]] : [])];
        // The position, implicit at the end of every index, is named when columns follow it.
        const rest = following.length === 0 ? [] : ['position', ...following.map((filter) => COLUMNS[filter])];
        const columns = [...filters, ...rest].join(', ');
        db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON events (${columns}) WHERE ${ORGANIZATION} IS NOT NULL`);
      }
    }).immediate();
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/** How far apart in time two events may be recorded out of position order: the writer's busy timeout. */
const STAMP_SLACK_MS = 5_000;
const shifted = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

type Row = { position: number };
/** A search narrowed to one type (or none): what one index range answers. */
type SingleSearch = Omit<EventSearch, 'types'> & { type?: string };

/** The searches of the events table, on a read connection; the rows come back whole (`SELECT *`). */
export class EventSearchQueries<R extends Row> {
  private readonly statements = new Map<string, Database.Statement<unknown[], R>>();
  private readonly firstAt: Database.Statement<[number], { position: number; recorded_at: string }>;

  constructor(private readonly db: Database.Database) {
    this.firstAt = db.prepare('SELECT position, recorded_at FROM events WHERE position >= ? ORDER BY position LIMIT 1');
  }

  /** Matching rows after `after`, in position order, at most `maxCount`: one index range per type, merged. */
  search(search: EventSearch, after: number, maxCount: number, head: number): R[] {
    const range = this.positionsRecordedIn(search, after, head);
    if (range === null) return [];
    const { types, ...rest } = search;
    const perType = types ? [...new Set(types)].map((type) => ({ ...rest, type })) : [rest];
    const rows = perType.flatMap((single) => this.page(single, range, maxCount));
    return perType.length === 1 ? rows : rows.sort((a, b) => a.position - b.position).slice(0, maxCount);
  }

  private page(search: SingleSearch, range: { from: number; to: number }, maxCount: number): R[] {
    const filters = (Object.keys(COLUMNS) as Filter[]).filter((filter) => search[filter] !== undefined);
    const index = INDEXES.find(({ leading }) => leading === undefined || filters.includes(leading))!;
    const conditions: [string, unknown][] = [
      [`${ORGANIZATION} = ?`, search.organizationId],
      ...filters.map((filter): [string, unknown] => [`${COLUMNS[filter]} = ?`, search[filter]]),
      ['position >= ?', range.from],
      ['position <= ?', range.to],
    ];
    if (search.recordedFrom !== undefined) conditions.push(['recorded_at >= ?', search.recordedFrom]);
    if (search.recordedTo !== undefined) conditions.push(['recorded_at <= ?', search.recordedTo]);
    const where = conditions.map(([condition]) => condition).join(' AND ');
    const sql = `SELECT * FROM events INDEXED BY ${index.name} WHERE ${where} ORDER BY position LIMIT ?`;
    return this.statement(sql).all(...conditions.map(([, value]) => value), maxCount);
  }

  /** Prepared once per combination of filters (a few dozen at most). */
  private statement(sql: string): Database.Statement<unknown[], R> {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare<unknown[], R>(sql)));
    return statement;
  }

  /**
   * The positions after `after` whose events may be recorded in the time range, null when none can be.
   * Positions follow recorded times, so each end is a binary search over the primary key, a few dozen
   * lookups. Not exactly: a writer stamps its batch before it takes the write lock, which another
   * process may hold for up to the busy timeout, so each end is sought that much further out, and the
   * page checks each event's own time.
   */
  private positionsRecordedIn(search: EventSearch, after: number, head: number): { from: number; to: number } | null {
    const { recordedFrom: from, recordedTo: to } = search;
    const earliest = from === undefined ? null : shifted(from, -STAMP_SLACK_MS);
    const latest = to === undefined ? null : shifted(to, STAMP_SLACK_MS);
    const start = earliest === null ? 0 : this.firstPosition(head, (t) => t >= earliest);
    const first = Math.max(after + 1, start);
    const last = latest === null ? head : this.firstPosition(head, (t) => t > latest) - 1;
    return first > last ? null : { from: first, to: last };
  }

  /** The smallest position from which every event is recorded at a time `past` holds for; head + 1 if none. */
  private firstPosition(head: number, past: (recordedAt: string) => boolean): number {
    let low = 0;
    let high = head + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const row = this.firstAt.get(middle);
      if (row === undefined || past(row.recorded_at)) high = middle;
      else low = row.position + 1;
    }
    return low;
  }
}
