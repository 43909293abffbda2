/**
 * One aggregate's stream for the organization's auditors (docs/audit.md): its history, oldest first
 * and paged by revision (`GET /audit/streams/{stream}`), and its state at a point in time, folded from
 * its events by the aggregate's own decider (`GET /audit/state/{stream}`). Both read the event store
 * only, never a read model or a snapshot, and show events through the audit's event view (secrets
 * masked), so a state folded from them holds no secret either.
 */
import { forbidden, notFound } from '../../domain/shared/errors';
import type { EventStore } from '../ports/event-store';
import type { RequestContext } from '../request-context';
import { aggregateOf, type Aggregate } from './aggregates';
import { eventView, withSecretsMasked, type AuditEvent } from './event-view';
import { plainJson, type Json } from './plain-json';

export const STREAM_NOT_FOUND = 'Stream not found';
export const STREAM_FORBIDDEN = 'Access denied - Stream belongs to another organization';
export const NOTHING_RECORDED_YET = 'The stream has no event recorded at or before `at`';
/** Events read from the store at a time while folding (bounded memory per request). */
const FOLD_CHUNK = 1_000;

export type StreamQuery = {
  /** Exclusive cursor: events whose revision is strictly greater; -1 from the first event. */
  after: number;
  limit: number;
};

export type StreamPage = {
  data: AuditEvent[];
  /** Revision of the last event returned (`after` when none was): the `after` of the next page. */
  next_after: number;
  /** true when the stream holds events after `next_after`. */
  has_more: boolean;
};

export type StateAt = {
  stream: string;
  /** The instant asked for, as ISO 8601 in UTC with milliseconds. */
  at: string;
  /** Revision of the last event folded. */
  revision: number;
  state: Json;
};

export class StreamAudit {
  constructor(private readonly events: EventStore) {}

  async history(ctx: RequestContext, streamId: string, query: StreamQuery): Promise<StreamPage> {
    await this.ownedAggregate(ctx, streamId);
    const read = await this.events.readStream(streamId, { fromRevision: query.after + 1, maxCount: query.limit + 1 });
    const data = read.slice(0, query.limit).map(eventView);
    return { data, next_after: data.at(-1)?.revision ?? query.after, has_more: read.length > query.limit };
  }

  /**
   * The state folded from the events recorded at or before `at`. They are the stream's first events
   * up to the first one recorded later: a state is always that of a prefix of the history, the state
   * the aggregate had, even were clocks to make a later revision look earlier.
   */
  async stateAt(ctx: RequestContext, streamId: string, at: Date): Promise<StateAt> {
    const { decider } = await this.ownedAggregate(ctx, streamId);
    let state = decider.initialState();
    let revision = -1;
    for (let from = 0; ;) {
      const chunk = await this.events.readStream(streamId, { fromRevision: from, maxCount: FOLD_CHUNK });
      const later = chunk.findIndex((event) => Date.parse(event.recordedAt) > at.getTime());
      for (const event of later === -1 ? chunk : chunk.slice(0, later)) {
        const { type, data } = withSecretsMasked(event);
        state = decider.evolve(state, { type, data });
        revision = event.revision;
      }
      if (later !== -1 || chunk.length < FOLD_CHUNK) break;
      from = revision + 1;
    }
    if (revision === -1) throw notFound(NOTHING_RECORDED_YET);
    return { stream: streamId, at: at.toISOString(), revision, state: plainJson(state) };
  }

  /**
   * The aggregate of a stream the caller's organization owns. 404 for a stream that is no aggregate's
   * (a snapshot), has no event, or that no organization owns (its first event names none); 403 for
   * another organization's.
   */
  private async ownedAggregate(ctx: RequestContext, streamId: string): Promise<Aggregate> {
    const found = aggregateOf(streamId);
    if (!found) throw notFound(STREAM_NOT_FOUND);
    const [first] = await this.events.readStream(streamId, { maxCount: 1 });
    if (!first) throw notFound(STREAM_NOT_FOUND);
    const owner = found.aggregate.owner === 'id' ? found.id : first.metadata.organizationId;
    if (owner === null) throw notFound(STREAM_NOT_FOUND);
    if (owner !== ctx.organizationId) throw forbidden(STREAM_FORBIDDEN);
    return found.aggregate;
  }
}
