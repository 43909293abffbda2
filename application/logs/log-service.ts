/**
 * The communication logs (spec 4.4): calls and chats of one organization, newest `start_time` first,
 * 10 per page, with the filters of the spec. Each entry carries only the fields of its type.
 */
import { CALL_NOT_FOUND } from '../../domain/calls/call';
import { CHAT_NOT_FOUND } from '../../domain/chats/chat';
import { forbidden, invalid, notFound } from '../../domain/shared/errors';
import { findPage, type Pagination } from '../pagination';
import type { Condition, Query, ReadCollection } from '../ports/read-store';
import type { RequestContext } from '../request-context';

export const LOGS_PER_PAGE = 10;
export const LOG_TYPES = ['call', 'chat', 'sms'] as const;

export type LogFilters = {
  type?: string;
  status?: string;
  disposition?: string;
  from_phone?: string;
  phone?: string;
  campaign_id?: string;
  agent_id?: string;
  start_time?: string;
  end_time?: string;
  page: number;
};

type Entry = { id: string; organizationId: string; start_time: string } & Record<string, unknown>;

export class LogService {
  constructor(private readonly logs: ReadCollection<Entry>) {}

  async list(
    ctx: RequestContext,
    filters: LogFilters,
  ): Promise<{ data: Record<string, unknown>[]; pagination: Pagination }> {
    const { docs, pagination } = await findPage(
      this.logs,
      toQuery(ctx, filters),
      { page: filters.page, limit: LOGS_PER_PAGE },
      { field: 'start_time', order: 'desc' },
    );
    return { data: docs.map(entryView), pagination };
  }

  async count(ctx: RequestContext, filters: LogFilters): Promise<number> {
    return this.logs.count(toQuery(ctx, filters));
  }

  /** One call's entry (decisions.md: the call detail has the fields of a call log entry). */
  async call(ctx: RequestContext, callId: string): Promise<Record<string, unknown>> {
    const entry = await this.logs.get(callId);
    if (!entry || entry.type !== 'call') throw notFound(CALL_NOT_FOUND);
    if (entry.organizationId !== ctx.organizationId)
      throw forbidden('Access denied - Call belongs to another organization');
    return entryView(entry);
  }

  /** One chat message (spec 2.4), from its log entry. */
  async chat(ctx: RequestContext, messageId: string): Promise<Record<string, unknown>> {
    const entry = await this.logs.get(messageId);
    if (!entry || entry.type !== 'chat') throw notFound(CHAT_NOT_FOUND);
    if (entry.organizationId !== ctx.organizationId)
      throw forbidden('Access denied - Chat message belongs to another organization');
    return chatDetailView(entry);
  }
}

/** Spec 2.4's fields, in its order; the customer key is `loan_id` or `lead_id`, whichever the entry has. */
const CHAT_DETAIL_FIELDS = [
  'message_id',
  'platform_msg_id',
  'agent_id',
  'campaign_id',
  'to',
  'status',
  'template_id',
  'name',
  'loan_id',
  'lead_id',
  'conversation',
  'errors',
] as const;

export function chatDetailView(entry: Entry): Record<string, unknown> {
  return Object.fromEntries(
    CHAT_DETAIL_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]),
  );
}

/** The spec's filters as a read-store query; a bad value is a validation error naming the filter. */
export function toQuery(ctx: RequestContext, f: LogFilters): Omit<Query, 'sort' | 'offset' | 'limit'> {
  const errors: string[] = [];
  if (f.type !== undefined && !(LOG_TYPES as readonly string[]).includes(f.type))
    errors.push(`type must be one of ${LOG_TYPES.join(', ')}`);
  const { gte, lte } = utcTimeRange(f.start_time, f.end_time, errors);
  if (errors.length > 0) throw invalid('Validation failed', { errors });
  const where: Record<string, Condition> = { organizationId: ctx.organizationId };
  const equal = {
    type: f.type,
    status: f.status,
    disposition: f.disposition,
    from: f.from_phone,
    to: f.phone,
    campaign_id: f.campaign_id,
    agent_id: f.agent_id,
  };
  for (const [field, value] of Object.entries(equal)) if (value !== undefined) where[field] = value;
  return { where, ...((gte || lte) && { range: { field: 'start_time', ...(gte && { gte }), ...(lte && { lte }) } }) };
}

/**
 * `start_time` and `end_time` as UTC instants, both inclusive (the audit's filters read them the same
 * way); a bad value is an error naming the parameter.
 */
export function utcTimeRange(
  startTime: string | undefined,
  endTime: string | undefined,
  errors: string[],
): { gte?: string; lte?: string } {
  const gte = startTime === undefined ? undefined : utcInstant(startTime, 'start_time', errors);
  const lte = endTime === undefined ? undefined : utcInstant(endTime, 'end_time', errors);
  if (gte && lte && gte > lte) errors.push('start_time must not be after end_time');
  return { ...(gte && { gte }), ...(lte && { lte }) };
}

/** An ISO 8601 date-time as a UTC instant; a time without an offset is read as UTC. */
function utcInstant(value: string, name: string, errors: string[]): string | undefined {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(value);
  if (!iso) {
    errors.push(`${name} must be an ISO 8601 date-time`);
    return undefined;
  }
  const withOffset = iso[4] ? value : `${iso[1] ? value : `${value}T00:00:00`}Z`;
  const time = Date.parse(withOffset);
  if (Number.isNaN(time)) {
    errors.push(`${name} must be an ISO 8601 date-time`);
    return undefined;
  }
  return new Date(time).toISOString();
}

/**
 * An entry as the API shows it: without the read model's own bookkeeping, nor a chat's template id
 * (kept for the chat detail; not a field of a log entry).
 */
export const entryView = ({ id: _id, organizationId: _org, ...entry }: Entry): Record<string, unknown> => {
  if (entry.type !== 'chat') return entry;
  const { template_id: _template, ...chat } = entry;
  return chat;
};
