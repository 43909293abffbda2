/**
 * The audit read from its event index (projections/audit/event-index.ts), for event stores that cannot
 * search their events (EventStoreDB): one document per event of an organization, with what the filters
 * select on and the event as the audit shows it. A page waits at the door, as every read, until the
 * index includes every event acknowledged before the request.
 */
import type { Condition, ReadCollection, ReadStore } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import type { EventIndexDocument } from '../../projections/audit/event-index';
import type { AuditPage, AuditQuery, AuditService } from './audit-service';
import { pageOf } from './audit-service';

type PositionRange = { gte: number; lte?: number };

export class EventIndexAudit implements AuditService {
  /**
   * `index`: the event index's collection; `checkpointOf`: how far the index has been committed
   * (the read store's checkpoint of its projection).
   */
  constructor(
    private readonly index: ReadCollection<EventIndexDocument>,
    private readonly checkpointOf: () => ReturnType<ReadStore['checkpoint']>,
  ) {}

  async page(ctx: RequestContext, query: AuditQuery): Promise<AuditPage> {
    // Read before the page: commits move the checkpoint with their documents, so the page sees every event up to it.
    const covered = await this.checkpointOf();
    const where: Record<string, Condition> = { organizationId: ctx.organizationId };
    if (query.stream !== undefined) where.stream = query.stream;
    if (query.actor !== undefined) where.actor = query.actor;
    if (query.requestId !== undefined) where.requestId = query.requestId;
    const positions = await this.positionsRecordedIn(ctx.organizationId, query);
    if (positions === null) return { data: [], ...pageOf(query, [], covered).cursor };
    const range = { field: 'position', ...positions, gte: Math.max(query.after + 1, positions.gte) };
    // One index range per type (equality keeps each in position order), merged: a list costs its length in pages.
    const types = query.types ? [...new Set(query.types)] : [undefined];
    const found = await Promise.all(
      types.map((type) =>
        this.index.find({
          where: type === undefined ? where : { ...where, type },
          range,
          sort: { field: 'position', order: 'asc' },
          limit: query.limit + 1,
        }),
      ),
    );
    const docs = found.flat().sort((a, b) => a.position - b.position);
    const { page, cursor } = pageOf(query, docs, covered);
    return { data: page.filter((doc) => recordedWithin(doc, query)).map((doc) => doc.event), ...cursor };
  }

  /**
   * The positions of the organization's events recorded in the time range: from the first recorded at
   * or after its start to the last recorded at or before its end; null when none is. Positions follow
   * recorded times (each store stamps an append's time as it orders it: SQLite under its write lock,
   * EventStoreDB on its leader), so this is one lookup in the recorded-time index at each end; a page
   * still keeps only events whose own time is in the range, should a clock ever step back.
   */
  private async positionsRecordedIn(organizationId: string, query: AuditQuery): Promise<PositionRange | null> {
    const edge = async (order: 'asc' | 'desc', bound: { gte: string } | { lte: string }) => {
      const [doc] = await this.index.find({
        where: { organizationId },
        range: { field: 'recordedAt', ...bound },
        // Equal times sort by id, which sorts as the position does: the first, or the last, of them.
        sort: { field: 'recordedAt', order },
        limit: 1,
      });
      return doc?.position ?? null;
    };
    const first = query.startTime === undefined ? 0 : await edge('asc', { gte: query.startTime });
    const last = query.endTime === undefined ? undefined : await edge('desc', { lte: query.endTime });
    if (first === null || last === null) return null;
    return last === undefined ? { gte: first } : { gte: first, lte: last };
  }
}

const recordedWithin = (doc: EventIndexDocument, query: AuditQuery) =>
  (query.startTime === undefined || doc.recordedAt >= query.startTime) &&
  (query.endTime === undefined || doc.recordedAt <= query.endTime);
