/**
 * The chat channel end to end on the embedded SQLite stores, with the built-in chat platform running
 * at once (SIMULATION_SPEED 0): a campaign of customers writing in several languages gets a template
 * through `/initiate/{id}/chat` with filters and a limit and conversation settings; afterwards the logs
 * and the chat details show every conversation with its final status, the replies in the customer's
 * language, delivery errors for the failed ones, and nothing for blacklisted customers.
 */
import { startTestService, type TestService } from '../support/test-service';
import { chatApi, type Org } from '../integration/chats/setup';

jest.setTimeout(180_000);

/** A letter of each language's script, to tell which language a message is written in. */
const SCRIPTS: Record<string, RegExp> = {
  Hindi: /[\u0900-\u097F]/,
  Tamil: /[\u0B80-\u0BFF]/,
  Bengali: /[\u0980-\u09FF]/,
  English: /^[^\u0900-\u0DFF]+$/,
};

describe('chats end to end (sqlite, built-in chat platform)', () => {
  let t: TestService;
  let api: ReturnType<typeof chatApi>;
  let org: Org;

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite', env: { SIMULATION_SPEED: '0' } });
    api = chatApi(t);
    org = await t.newOrganization('collection');
  });
  afterAll(() => t.stop());

  it('sends, converses in the customer language, ends every chat once, and shows it all in logs and details', async () => {
    const { agentId, groupId, memberIds } = await api.conversation(org);
    const templateId = await api.template(
      org,
      'Hello {{first_name}}, your EMI of ₹{{emi_amount}} was due on {{emi_due_date}}. Reply to talk to us.',
    );
    const languages = ['Hindi', 'Tamil', 'Bengali', 'English'];
    const records = Array.from({ length: 48 }, (_, i) =>
      api.loan(`E${String(i).padStart(2, '0')}`, {
        language: languages[i % 4],
        payment_status: i % 6 === 5 ? 'paid' : 'pending',
      }),
    );
    // Not a number a chat platform can address (7 digits): its message fails with a delivery error.
    records[0]!.phone_number = '+1234567';
    const campaignId = await api.campaign(org, records);
    const blacklisted = [records[1]!, records[2]!];
    expect(
      (
        await api.call(
          org,
          'POST',
          '/blacklist/bulk/add',
          blacklisted.map((r) => ({ number: r.phone_number })),
        )
      ).status,
    ).toBe(200);

    // 40 pending customers match; the limit takes the first 36 added.
    const reply = await api.call(org, 'POST', `/initiate/${campaignId}/chat`, {
      templateId,
      conversationSettings: { agentId, dispositionId: groupId },
      filters: { payment_status: 'pending', exclude_ids: ['E03'] },
      limit: 36,
    });
    expect(reply.status).toBe(207);
    expect(reply.body.results).toEqual({
      totalMatched: 39,
      customersSelected: 36,
      initiated: 34,
      failed: 2,
      batchesProcessed: 1,
      errors: [{ batch: 1, error: 'Number is blacklisted', reason: 'blacklisted', affectedCustomers: 2 }],
    });

    const entries = await api.settledChats(org, campaignId, 34);
    expect(entries).toHaveLength(34);
    const byLoan = new Map(entries.map((e) => [e.loan_id as string, e]));
    const pending = records.filter((r) => r.payment_status === 'pending' && r.loan_id !== 'E03').slice(0, 36);
    for (const r of pending) {
      if (blacklisted.includes(r)) expect(byLoan.has(r.loan_id)).toBe(false);
      else expect(byLoan.has(r.loan_id)).toBe(true);
    }
    for (const r of records.filter((x) => !pending.includes(x))) expect(byLoan.has(r.loan_id)).toBe(false);

    let answered = 0;
    for (const entry of entries) {
      const record = records.find((r) => r.loan_id === entry.loan_id)!;
      const detail = (await api.call(org, 'GET', `/communication/chat/${entry.message_id}`)).body.data;
      expect(detail).toMatchObject({
        message_id: entry.message_id,
        status: entry.status,
        template_id: templateId,
        agent_id: agentId,
        campaign_id: campaignId,
        to: record.phone_number,
        loan_id: record.loan_id,
        name: `${record.first_name} Rao`,
      });
      expect(detail.platform_msg_id).toMatch(/^bmsg\.[0-9a-f]{32}$/);
      expect(detail.conversation).toEqual(entry.conversation);
      expect(detail.errors).toEqual(entry.errors);
      expect(detail.conversation[0]).toEqual({
        role: 'assistant',
        content: `Hello ${record.first_name}, your EMI of ₹5,000 was due on 2026-04-05. Reply to talk to us.`,
        timestamp: entry.start_time,
      });
      expect(['Sent', 'Delivered', 'Read', 'Failed']).toContain(entry.status);
      if (entry.status === 'Failed') {
        expect(detail.errors.length).toBeGreaterThan(0);
        for (const error of detail.errors) {
          expect(error).toEqual({
            code: expect.any(Number),
            title: expect.any(String),
            message: expect.any(String),
            href: `/chat/v1/errors#${error.code}`,
            error_data: { details: expect.any(String) },
          });
          expect(Number.isInteger(error.code)).toBe(true);
          // The link leads to the service's error reference, which has a section for the code.
          const reference = await fetch(new URL(error.href, t.url));
          expect(reference.status).toBe(200);
          expect(await reference.text()).toContain(`<section id="${error.code}"><h2>${error.code} ${error.title}</h2>`);
        }
        expect(entry.disposition).toBeNull();
      } else {
        expect(detail.errors).toEqual([]);
      }
      const replies = detail.conversation.slice(1);
      if (replies.length > 0) {
        expect(entry.status).toBe('Read');
        expect(replies[0].role).toBe('user');
        const agentAnswer = replies.find((m: { role: string }) => m.role === 'assistant');
        expect(agentAnswer).toBeDefined();
        // The customer and the agent write in the customer's language.
        for (const m of replies)
          expect(m.content).toMatch(SCRIPTS[String((record as Record<string, unknown>).language)]!);
        // A conversation ends with one of the configured group's dispositions.
        expect(memberIds).toContain(entry.disposition_id);
        answered++;
      }
    }
    expect(byLoan.get('E00')).toMatchObject({
      status: 'Failed',
      errors: [expect.objectContaining({ code: 4001, title: 'Invalid phone number' })],
    });
    expect(answered).toBeGreaterThan(0);

    // Each chat ended exactly once, in the event store.
    for (const entry of entries) {
      const events = await t.service.events.readStream(`chat-${entry.message_id}`);
      expect(events.filter((e) => e.type === 'ChatEnded')).toHaveLength(1);
    }
    // The logs' filters see the final statuses.
    const total = (query: string) =>
      api
        .call(org, 'GET', `/logs?count_only=true&campaign_id=${campaignId}&${query}`)
        .then((r) => r.body.total as number);
    let sum = 0;
    for (const status of ['Accepted', 'Sent', 'Delivered', 'Read', 'Failed']) sum += await total(`status=${status}`);
    expect(sum).toBe(34);
    expect(await total('status=Accepted')).toBe(0);
    expect(await total('type=call')).toBe(0);
  });
});
