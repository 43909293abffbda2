/**
 * Retention of conversation content (docs/privacy.md, "Retention") over the real service on SQLite,
 * its clock moved forward: once a call or chat ended longer ago than its organization's retention, its
 * transcript, summary, extracted data, messages and recording are erased, and who it was with stays;
 * counts stay, the read models equal a rebuild from the events, a second sweep records nothing, younger
 * content and another organization's content are untouched, and a sweep cut after deleting the keys
 * is finished by the next one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ERASED } from '../../../domain/privacy/erased';
import { projectionDifferences } from '../../support/admin-cli';
import { tempDir } from '../../support/temp-dir';
import { startTestService, type TestService } from '../../support/test-service';
import { callReadyOrganization, eventually, type CallSetup } from '../webhooks/support';
import { personRecord, type Person } from '../../support/privacy';

jest.setTimeout(300_000);

const DAY_MS = 86_400_000;
/** How far the service's clock is ahead of the real one. */
let ahead = 0;
const clock = () => new Date(Date.now() + ahead);

let seq = 0;
const person = (first: string): Person => {
  seq++;
  return { loanId: `LN-R${seq}`, first, last: `Retained${seq}`, phone: `+9198765${String(10_000 + seq)}` };
};

const record = (p: Person) => personRecord(p);

/** What the organization reads of one conversation: its log entry, detail, transcript and recording. */
type Conversation = {
  entry: Record<string, any>;
  detail: Record<string, any>;
  transcript: { speaker: string; message: string }[] | null;
  recording: number | null;
};

describe('retention of conversation content', () => {
  const dir = tempDir();
  const env = { DATA_DIR: dir.path };
  let t: TestService;
  /** Keeps conversation content for 30 days. */
  let s: CallSetup;
  /** Keeps it for ever (no retention set). */
  let other: CallSetup;
  let first: { campaignId: string; people: Person[] };
  let before: Conversation[];
  let othersBefore: Conversation[];

  const api = (setup: CallSetup, method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: setup.org.token, body });
  const privacyHistory = async (setup: CallSetup) =>
    (await api(setup, 'GET', `/audit/streams/privacy-${setup.org.id}`)).body.data as { type: string; data: any }[];

  /** Lets the organization's number answer inbound calls (answered every time, so each batch has a recording). */
  async function answerInbound(setup: CallSetup) {
    const number = (await api(setup, 'GET', '/numbers')).body.data[0].number as string;
    const path = `/numbers/${encodeURIComponent(number)}/inbound`;
    expect((await api(setup, 'PUT', path, { agentId: setup.agentId, dispositionId: setup.dispositionId })).status).toBe(
      200,
    );
    numbers.set(setup.org.id, number);
  }
  const numbers = new Map<string, string>();

  /**
   * A new campaign of the people, each called and sent a chat, and the first of them calling the
   * organization; answers once all ended.
   */
  async function contact(setup: CallSetup, people: Person[]) {
    const campaignId = (
      await api(setup, 'POST', '/campaigns/create', { name: `Retention ${seq}`, campaignType: 'emi' })
    ).body.data.id as string;
    const added = await api(setup, 'POST', '/customers/add/bulk', {
      campaignId,
      records: people.map(record),
      initiateCall: true,
      callConfig: { agentId: setup.agentId, dispositionId: setup.dispositionId },
    });
    expect(added.status).toBe(201);
    const template = await api(setup, 'POST', '/chat/templates', {
      name: `Reminder ${campaignId}`,
      body: 'Hello {{first_name}} {{last_name}}, your EMI is due.',
    });
    expect(
      (await api(setup, 'POST', `/initiate/${campaignId}/chat`, { templateId: template.body.data.id })).status,
    ).toBe(200);
    const inbound = await t.request('POST', '/admin/v1/simulate/inbound', {
      token: t.adminToken,
      body: { number: numbers.get(setup.org.id), channel: 'call', from: people[0]!.phone },
    });
    expect(inbound.body.data).toMatchObject({ outcome: 'answered' });
    const finals = ['Completed', 'No Contact', 'Failed'];
    await eventually(
      async () => {
        const entries = await entriesOf(setup, campaignId);
        const calls = entries.filter((e) => e.type === 'call' && finals.includes(e.status));
        const chats = entries.filter((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== ''));
        return calls.length === people.length + 1 && chats.length === people.length ? true : undefined;
      },
      60_000,
      'calls and chats to end',
    );
    return { campaignId, people };
  }

  const idOf = (entry: Record<string, any>): string => entry.call_id ?? entry.message_id;

  async function entriesOf(setup: CallSetup, campaignId: string): Promise<Record<string, any>[]> {
    const entries = (await api(setup, 'GET', `/logs?campaign_id=${campaignId}&limit=100`)).body.data;
    return (entries as Record<string, any>[]).sort((a, b) => idOf(a).localeCompare(idOf(b)));
  }

  /** Everything the organization reads of the campaign's conversations. */
  async function conversations(setup: CallSetup, campaignId: string): Promise<Conversation[]> {
    const read: Conversation[] = [];
    for (const entry of await entriesOf(setup, campaignId)) {
      if (entry.type === 'call') {
        const detail = (await api(setup, 'GET', `/communication/call/${entry.call_id}`)).body.data;
        const transcript = entry.transcript_id
          ? (await api(setup, 'GET', `/transcript/${entry.transcript_id}`)).body.data
          : null;
        const recording = entry.recording_id
          ? (await api(setup, 'GET', `/recording/${entry.recording_id}`)).status
          : null;
        read.push({ entry, detail, transcript, recording });
      } else {
        const detail = (await api(setup, 'GET', `/communication/chat/${entry.message_id}`)).body.data;
        read.push({ entry, detail, transcript: null, recording: null });
      }
    }
    return read;
  }

  const recordingFile = (id: string) => join(dir.path, 'recordings', `recording-${id}`);

  /** Each conversation as it reads once its content is erased: who it was with as before, what was said not. */
  function expectContentErased(after: Conversation[], was: Conversation[]) {
    expect(after.map((c) => idOf(c.entry))).toEqual(was.map((c) => idOf(c.entry)));
    after.forEach((now, i) => {
      const then = was[i]!;
      for (const field of ['name', 'to', 'from', 'status', 'duration', 'start_time', 'end_time', 'loan_id'])
        expect({ field, value: now.entry[field] }).toEqual({ field, value: then.entry[field] });
      if (now.entry.type === 'call') {
        expect(now.entry.summary).toBe(ERASED);
        expect(now.entry.extracted_data).toEqual({});
        expect(now.detail.summary).toBe(ERASED);
        if (then.transcript) {
          expect(now.transcript).toEqual(then.transcript.map((turn) => ({ ...turn, message: ERASED })));
        }
        if (then.recording !== null) {
          expect(then.recording).toBe(200);
          expect(now.recording).toBe(404);
          expect(existsSync(recordingFile(now.entry.recording_id))).toBe(false);
        }
      } else {
        expect(now.detail.conversation.length).toBe(then.detail.conversation.length);
        expect(now.detail.conversation.every((m: { content: string }) => m.content === ERASED)).toBe(true);
        if (then.entry.summary !== '') expect(now.entry.summary).toBe(ERASED);
      }
    });
  }

  beforeAll(async () => {
    t = await startTestService({
      store: 'sqlite',
      env: { ...env, SERVICES: 'speech,agent', PRIVACY_RETENTION_SWEEP_SECONDS: '1' },
      overrides: { now: clock },
    });
    s = await callReadyOrganization(t);
    other = await callReadyOrganization(t);
    for (const setup of [s, other]) await answerInbound(setup);
    const set = await api(s, 'PUT', '/privacy/retention', { days: 30 });
    expect(set.body).toEqual({ success: true, message: 'Retention saved', data: { days: 30 } });
    first = await contact(s, [person('Zorawar'), person('Yamini')]);
    const theirs = await contact(other, [person('Ottoline')]);
    before = await conversations(s, first.campaignId);
    othersBefore = await conversations(other, theirs.campaignId);
    expect(before.some((c) => c.recording === 200)).toBe(true);
    expect(before.some((c) => c.transcript?.some((turn) => turn.message !== ERASED))).toBe(true);
  });
  afterAll(async () => {
    await t.stop();
    dir.remove();
  });

  it('leaves content younger than the retention as it is', async () => {
    // Several sweeps go by (one a second).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await privacyHistory(s)).map((e) => e.type)).toEqual(['RetentionSet']);
    expect(await conversations(s, first.campaignId)).toEqual(before);
  });

  it('erases the transcripts, summaries, messages and recordings of conversations past the retention', async () => {
    const total = (await api(s, 'GET', '/logs?count_only=true')).body.total;
    const summary = (await api(s, 'GET', '/analytics/summary')).body;
    ahead = 31 * DAY_MS;
    const erasure = await eventually(
      async () => (await privacyHistory(s)).find((e) => e.type === 'ConversationContentErased'),
      30_000,
      'the retention sweep',
    );
    const ids = (kind: string) => before.filter((c) => c.entry.type === kind).map((c) => idOf(c.entry));
    expect(erasure.data).toMatchObject({ organizationId: s.org.id, reason: 'retention' });
    expect([...erasure.data.calls].sort()).toEqual(ids('call'));
    expect([...erasure.data.chats].sort()).toEqual(ids('chat'));
    expect(erasure.data.recordingIds.length).toBe(before.filter((c) => c.recording !== null).length);

    const after = await conversations(s, first.campaignId);
    expectContentErased(after, before);
    // Names and numbers are kept: the logs still find the conversations by the customer's number.
    for (const p of first.people) {
      const found = (await api(s, 'GET', `/logs?phone=${encodeURIComponent(p.phone)}`)).body.data;
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((e: { name: string }) => e.name.includes(p.first))).toBe(true);
    }
    expect((await api(s, 'GET', '/logs?count_only=true')).body.total).toBe(total);
    expect((await api(s, 'GET', '/analytics/summary')).body).toEqual(summary);
  });

  it("leaves another organization's content, which has no retention, as it is", async () => {
    expect((await api(other, 'GET', '/privacy/retention')).body.data).toEqual({ days: null });
    expect(await conversations(other, othersBefore[0]!.entry.campaign_id)).toEqual(othersBefore);
    // Nothing was ever recorded on its privacy stream.
    expect((await api(other, 'GET', `/audit/streams/privacy-${other.org.id}`)).status).toBe(404);
  });

  it('keeps the read models equal to a rebuild from the events, and records nothing on the next sweeps', async () => {
    const recorded = (await privacyHistory(s)).length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await privacyHistory(s)).length).toBe(recorded);
    expect(await projectionDifferences(env)).toEqual([]);
  });

  it('erases newer content only once it outlives the retention in turn', async () => {
    const later = await contact(s, [person('Xavier')]);
    const fresh = await conversations(s, later.campaignId);
    const recorded = (await privacyHistory(s)).length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await conversations(s, later.campaignId)).toEqual(fresh);
    expect((await privacyHistory(s)).length).toBe(recorded);

    ahead = 62 * DAY_MS;
    await eventually(
      async () => ((await privacyHistory(s)).length > recorded ? true : undefined),
      30_000,
      'the next retention sweep',
    );
    expectContentErased(await conversations(s, later.campaignId), fresh);
  });

  it('finishes a sweep cut between deleting the keys and recording the erasure', async () => {
    const cut = await contact(s, [person('Wilhelmina')]);
    const was = await conversations(s, cut.campaignId);
    // The keys of a sweep cut short: its content reads erased in the events, the read models do not know yet.
    const streams = was.map((c) =>
      c.entry.type === 'call' ? `call-${c.entry.call_id}` : `chat-${c.entry.message_id}`,
    );
    await t.service.keys.eraseContent(streams);
    const recorded = (await privacyHistory(s)).length;
    // Until the next sweep the read models still show what the events no longer do.
    await expect(projectionDifferences(env)).rejects.toThrow(
      /conversation\[0\]\.content: live .*, rebuilt "\[erased\]"/,
    );

    ahead = 93 * DAY_MS;
    const erasure = await eventually(
      async () => (await privacyHistory(s)).slice(recorded).find((e) => e.type === 'ConversationContentErased'),
      30_000,
      'the sweep after the cut one',
    );
    expect(erasure.data.recordingIds.length).toBe(was.filter((c) => c.recording !== null).length);
    expect(erasure.data.recordingIds.length).toBeGreaterThan(0);
    expectContentErased(await conversations(s, cut.campaignId), was);
    expect(await projectionDifferences(env)).toEqual([]);
  });

  describe('the retention setting', () => {
    let setup: { org: { id: string; token: string } };
    let neighbour: { org: { id: string; token: string } };
    const put = (body: unknown, token = setup.org.token) =>
      t.request('PUT', '/api/v1/privacy/retention', { token, body });
    const get = (token = setup.org.token) => t.request('GET', '/api/v1/privacy/retention', { token });

    beforeAll(async () => {
      setup = { org: await t.newOrganization('lead_generation') };
      neighbour = { org: await t.newOrganization('collection') };
    });

    it('keeps content for ever by default, and is set, changed and removed', async () => {
      expect((await get()).body).toEqual({ success: true, data: { days: null } });
      expect((await put({ days: 3650 })).body.data).toEqual({ days: 3650 });
      expect((await put({ days: 1 })).body.data).toEqual({ days: 1 });
      expect((await get()).body.data).toEqual({ days: 1 });
      expect((await put({ days: null })).body).toEqual({
        success: true,
        message: 'Retention saved',
        data: { days: null },
      });
      expect((await put({ days: 90 })).body.data).toEqual({ days: 90 });
      const removed = await t.request('DELETE', '/api/v1/privacy/retention', { token: setup.org.token });
      expect(removed.body).toEqual({ success: true, message: 'Retention removed', data: { days: null } });
      expect((await get()).body.data).toEqual({ days: null });
      const history = (
        await t.request('GET', `/api/v1/audit/streams/privacy-${setup.org.id}`, { token: setup.org.token })
      ).body.data as { type: string; data: Record<string, unknown> }[];
      expect(history.map((e) => e.data.days)).toEqual([3650, 1, null, 90, null]);
    });

    it("is each organization's own", async () => {
      expect((await put({ days: 45 })).status).toBe(200);
      expect((await get(neighbour.org.token)).body.data).toEqual({ days: null });
      expect((await put({ days: 400 }, neighbour.org.token)).status).toBe(200);
      expect((await get()).body.data).toEqual({ days: 45 });
      // A body naming another organization is refused, not obeyed.
      const forged = await put({ days: 10, organizationId: neighbour.org.id });
      expect(forged.status).toBe(400);
      expect((await get(neighbour.org.token)).body.data).toEqual({ days: 400 });
    });

    it.each([
      [{ days: 0 }, 'days is not valid'],
      [{ days: 3651 }, 'days is not valid'],
      [{ days: 1.5 }, 'days is not valid'],
      [{ days: '30' }, 'days is not valid'],
      [{}, 'days is required'],
    ])('answers 400 in the envelope to %j', async (body, error) => {
      const reply = await put(body);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: 'Validation failed', errors: [error] });
      expect((await get()).body.data).toEqual({ days: 45 });
    });

    it('is set with privacy:erase and read with privacy:export or privacy:erase', async () => {
      const reader = await t.tokenFor(setup.org.id, { scopes: ['privacy:export'] });
      const eraser = await t.tokenFor(setup.org.id, { scopes: ['privacy:erase'] });
      const stranger = await t.tokenFor(setup.org.id, { scopes: ['logs:read'] });
      expect((await get(reader)).status).toBe(200);
      expect((await get(eraser)).status).toBe(200);
      expect((await get(stranger)).status).toBe(403);
      expect((await put({ days: 5 }, reader)).status).toBe(403);
      expect((await t.request('DELETE', '/api/v1/privacy/retention', { token: reader })).status).toBe(403);
      expect((await put({ days: 5 }, eraser)).status).toBe(200);
      expect((await get()).body.data).toEqual({ days: 5 });
    });
  });
});
