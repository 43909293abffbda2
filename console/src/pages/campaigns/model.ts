/**
 * What the campaign pages read of the API's answers (the OpenAPI types them as plain envelopes), and
 * the one rule they need of the organization's type: which field keys a customer record.
 */
export type CampaignType = 'emi' | 'edi' | 'lead';

export type Campaign = {
  id: string;
  name: string;
  description: string;
  campaignType: CampaignType;
  status: 'active' | 'paused';
  language: string | null;
  startDate: string | null;
  endDate: string | null;
  tags?: string[];
  agentId?: string | null;
  dispositionGroupId?: string | null;
  startTime?: string | null;
  endTime?: string | null;
  timezone?: string | null;
  blackoutDates?: string[];
  maxConcurrentCalls?: number | null;
  callsPerMinute?: number | null;
  retryPolicy?: {
    retryOn?: string[];
    delayMinutes?: number;
    maxAttemptsPerDay?: number;
    maxAttemptsTotal?: number;
  } | null;
  /** Where its calls stand (the campaign's own read only). */
  progress?: {
    phase: 'scheduled' | 'running' | 'completed';
    calls: { waiting: number; inProgress: number; done: number };
  };
  createdAt: string;
};

export type Customer = {
  id: string;
  campaignId: string;
  data: Record<string, unknown>;
  createdAt: string;
};

export type Named = { id: string; name: string };

/**
 * The API does not say which type the organization is; its campaigns do: a collection organization
 * may only create `emi` and `edi` campaigns, keyed by `loan_id`, a lead generation one only `lead`
 * campaigns, keyed by `lead_id`.
 */
export type KeyField = 'loan_id' | 'lead_id';
export const keyFieldOf = (type: CampaignType): KeyField => (type === 'lead' ? 'lead_id' : 'loan_id');

export const PAYMENT_STATUSES = ['bounced', 'pending', 'partial', 'paid', 'received'] as const;

/** The collection record's fields the API wants as JSON numbers (a CSV file has only text). */
export const NUMBER_FIELDS: ReadonlySet<string> = new Set(['loan_amount', 'emi_amount', 'loan_period', 'current_emi']);

/** A list for a choice: the first 100, which is the most the API lists at once. */
export const CHOICES = { page: 1, limit: 100 };

export const customerName = (data: Record<string, unknown>): string =>
  [data.first_name, data.last_name].filter((part) => typeof part === 'string' && part).join(' ');

export const shortDate = (iso: string): string => new Date(iso).toLocaleString();
