/** What the logs pages read of the API's answers (spec 2.3 to 2.5). */
export type LogEntry = {
  type: 'call' | 'chat' | 'sms';
  date: string;
  loan_id?: string;
  lead_id?: string;
  start_time: string;
  end_time: string | null;
  campaign_name: string;
  campaign_id: string;
  name: string;
  duration?: number;
  direction: string;
  from: string | null;
  to: string;
  status: string;
  disposition?: string | null;
  extracted_data?: Record<string, unknown>;
  agent_id: string;
  summary?: string;
  call_id?: string;
  transcript_id?: string;
  recording_id?: string;
  message_id?: string;
  platform_msg_id?: string;
};

export type ChatMessage = { role: 'assistant' | 'user'; content: string; timestamp: string };

export type DeliveryError = {
  code: number;
  title: string;
  message: string;
  href: string;
  error_data?: { details?: string };
};

export type ChatDetail = {
  message_id: string;
  platform_msg_id: string;
  agent_id: string;
  campaign_id: string;
  to: string;
  status: string;
  template_id: string;
  name: string;
  loan_id?: string;
  lead_id?: string;
  conversation: ChatMessage[];
  errors: DeliveryError[];
};

export type TranscriptEntry = { speaker: 'BOT' | 'HUMAN'; message: string };

export const CALL_STATUSES = ['Queued', 'Scheduled', 'Ringing', 'In Progress', 'Completed', 'No Contact', 'Failed'];
export const CHAT_STATUSES = ['Accepted', 'Sent', 'Delivered', 'Read', 'Failed'];

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '');

/**
 * A delivery error's `href` as a link, or null: only an `https:` address is rendered as one, so a
 * `javascript:` or `data:` value a platform (or whoever forged its webhook) put there is shown as text.
 */
export function documentationLink(href: string | undefined): string | null {
  if (!href) return null;
  try {
    const url = new URL(href);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export const keyOf = (entry: { loan_id?: string; lead_id?: string }): string => entry.loan_id ?? entry.lead_id ?? '';

/** A status as a class name: `No Contact` → `status-no-contact`. */
export const statusClass = (status: string): string => `status status-${status.toLowerCase().replace(/\s+/g, '-')}`;

export function seconds(total: number | undefined): string {
  if (total === undefined) return '';
  const m = Math.floor(total / 60);
  const s = Math.round(total % 60);
  return m > 0 ? `${m} min ${s} s` : `${s} s`;
}
