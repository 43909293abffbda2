/** Organizations, campaigns, agents, dispositions and templates for the chat suites, through the API. */
import { loanRecord, uniquePhone } from '../../support/records';
import { tokenOf, type TestService } from '../../support/test-service';

export type Org = { id: string; token: string };

export function chatApi(t: TestService) {
  let phoneSeq = 0;
  const call = (org: Org | string | null, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, {
      token: tokenOf(org),
      body,
    });
  const phone = () => uniquePhone();

  const loan = loanRecord;

  async function campaign(org: Org, records: Record<string, unknown>[], campaignType = 'emi'): Promise<string> {
    const created = await call(org, 'POST', '/campaigns/create', {
      name: `C${phoneSeq}-${Math.random().toString(36).slice(2, 6)}`,
      campaignType,
    });
    if (created.status !== 201) throw new Error(`campaign: ${created.status} ${created.text}`);
    const campaignId = created.body.data.id as string;
    for (let i = 0; i < records.length; i += 5000) {
      const added = await call(org, 'POST', '/customers/add/bulk', { campaignId, records: records.slice(i, i + 5000) });
      if (added.status !== 201) throw new Error(`bulk add: ${added.status} ${added.text}`);
    }
    return campaignId;
  }

  async function template(
    org: Org,
    body = 'Hello {{first_name}}, your EMI of {{emi_amount}} is due on {{emi_due_date}}.',
    language = 'en',
  ): Promise<string> {
    const created = await call(org, 'POST', '/chat/templates', { name: `Reminder ${phoneSeq++}`, language, body });
    if (created.status !== 201) throw new Error(`template: ${created.status} ${created.text}`);
    return created.body.data.id as string;
  }

  /** An agent and a disposition group of two dispositions. */
  async function conversation(
    org: Org,
  ): Promise<{ agentId: string; dispositionId: string; groupId: string; memberIds: string[] }> {
    const ptp = (await call(org, 'POST', '/dispositions', { name: 'Promise to pay' })).body.data.id as string;
    const later = (await call(org, 'POST', '/dispositions', { name: 'Call back later' })).body.data.id as string;
    const groupId = (
      await call(org, 'POST', '/dispositions/groups/create', { name: 'Chat outcomes', dispositions: [ptp, later] })
    ).body.data.id as string;
    const agentId = (await call(org, 'POST', '/agents', { name: 'Asha', language: 'en' })).body.data.id as string;
    return { agentId, dispositionId: ptp, groupId, memberIds: [ptp, later] };
  }

  /** Polls (bounded) until `done` holds for the value `read` gives; answers the last value. */
  async function until<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
    attempts = 300,
    everyMs = 50,
  ): Promise<T> {
    let value = await read();
    for (let i = 0; i < attempts && !done(value); i++) {
      await new Promise((r) => setTimeout(r, everyMs));
      value = await read();
    }
    return value;
  }

  /** Every chat log entry of a campaign once no chat of it is still open (each ended: Failed, or closed). */
  async function settledChats(org: Org, campaignId: string, expected: number): Promise<Record<string, any>[]> {
    const all = async () => {
      const entries: Record<string, any>[] = [];
      for (let page = 1; ; page++) {
        const r = await call(org, 'GET', `/logs?type=chat&campaign_id=${campaignId}&page=${page}`);
        entries.push(...r.body.data);
        if (!r.body.pagination.has_next) return entries;
      }
    };
    // A chat has ended when it failed, or when its summary (written by the end) is set.
    return until(
      all,
      (entries) => entries.length === expected && entries.every((e) => e.status === 'Failed' || e.summary !== ''),
    );
  }

  return { call, phone, loan, campaign, template, conversation, until, settledChats };
}
