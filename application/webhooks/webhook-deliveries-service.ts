/** The organization's webhook deliveries and their attempts (`GET /webhooks/deliveries[/{id}]`). */
import { ERASED } from '../../domain/privacy/erased';
import { ownedDocument } from '../ownership';
import { findPage, type Pagination } from '../pagination';
import type { Query, ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';
import type {
  AttemptDocument,
  DeliveryStatus,
  WebhookDeliveryDocument,
} from '../../projections/webhooks/webhook-deliveries';

export const DELIVERY_NOT_FOUND = 'Webhook delivery not found';
export const DELIVERY_FORBIDDEN = 'Access denied - Webhook delivery belongs to another organization';

export type DeliverySummary = {
  id: string;
  event: string;
  subject: { type: 'call' | 'chat'; id: string };
  url: string;
  status: DeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
  reason: string | null;
  createdAt: string;
  finishedAt: string | null;
};
export type DeliveryDetail = DeliverySummary & { attempts: AttemptDocument[]; payload: unknown };

export class WebhookDeliveriesService {
  constructor(private readonly deliveries: ReadCollection<WebhookDeliveryDocument>) {}

  async list(
    ctx: RequestContext,
    query: { page: number; limit: number; status?: DeliveryStatus },
  ): Promise<{ data: DeliverySummary[]; pagination: Pagination }> {
    const filter: Query = {
      where: { organizationId: ctx.organizationId, ...(query.status && { status: query.status }) },
    };
    const { docs, pagination } = await findPage(this.deliveries, filter, query, { field: 'createdAt', order: 'desc' });
    return { data: docs.map(summary), pagination };
  }

  async get(ctx: RequestContext, id: string): Promise<DeliveryDetail> {
    const doc = await ownedDocument(this.deliveries, id, ctx.organizationId, {
      notFound: DELIVERY_NOT_FOUND,
      forbidden: DELIVERY_FORBIDDEN,
    });
    // The body of a delivery whose subject was erased (docs/privacy.md) is the placeholder itself.
    return { ...summary(doc), attempts: doc.attempts, payload: doc.body === ERASED ? ERASED : JSON.parse(doc.body) };
  }
}

function summary(doc: WebhookDeliveryDocument): DeliverySummary {
  const last = doc.attempts.at(-1);
  return {
    id: doc.id,
    event: doc.event,
    subject: { type: doc.subjectType, id: doc.subjectId },
    url: doc.url,
    status: doc.status,
    attemptCount: doc.attempts.filter((a) => a.outcome === 'delivered' || a.outcome === 'failed').length,
    lastStatusCode: last?.statusCode ?? null,
    nextAttemptAt: doc.nextAttemptAt,
    reason: doc.reason,
    createdAt: doc.createdAt,
    finishedAt: doc.finishedAt,
  };
}
