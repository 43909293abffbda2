/**
 * The activity rollups are read models like the others for `projections verify|rebuild`, although they
 * read the log entries' changes rather than the events (`ModuleDefinition.derived`): on a service over the
 * embedded stores with calls and chats played to their end, verify finds nothing in healthy rollups and
 * names a bucket changed behind the service's back; rebuild builds them again from the first event while
 * the service runs, which repairs it; the analytics answer what they answered before the change, and the
 * rollups' own runner goes on in the new generation (a call placed after the switch is counted).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createAdminComposition, type AdminComposition } from '../../../api/admin/admin-composition';
import { activityRollupsProjection } from '../../../projections/analytics/activity-rollups';
import { loanRecord, uniquePhone } from '../../support/records';
import { startTestService, tokenOf, type TestService } from '../../support/test-service';
import { until } from '../../support/until';

jest.setTimeout(180_000);

type Org = { id: string; token: string };
type Entry = Record<string, any>;

const ROLLUPS = activityRollupsProjection.name;
const FINAL = ['Completed', 'No Contact', 'Failed'];

describe('activity rollups under projections verify and rebuild', () => {
  let t: TestService;
  let admin: AdminComposition;
  let org: Org;
  let campaign: string;
  let agent: string;
  let group: string;

  const call = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1${path}`, { token: tokenOf(org), body });
  const get = async (path: string) => {
    const reply = await call('GET', path);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
    return reply.body.data;
  };
  const logs = async (): Promise<Entry[]> => {
    const entries: Entry[] = [];
    for (let page = 1; ; page++) {
      const reply = await call('GET', `/logs?page=${page}`);
      entries.push(...reply.body.data);
      if (!reply.body.pagination.has_next) return entries;
    }
  };
  /** Until every call is final and every chat ended. */
  const settled = async (calls: number, chats: number) => {
    const entries = await until(
      logs,
      (all) => {
        const ended = all.filter((e) => e.type === 'call' && FINAL.includes(e.status)).length;
        const closed = all.filter((e) => e.type === 'chat' && (e.status === 'Failed' || e.summary !== '')).length;
        return ended === calls && closed === chats;
      },
      60_000,
    );
    expect(entries).toHaveLength(calls + chats);
  };
  /** What the rollups answer: whole days of the funnel, daily and agent figures. */
  const figures = async () => ({
    daily: await get('/analytics/daily'),
    agents: await get('/analytics/agents'),
    funnel: await get(`/analytics/campaigns/${campaign}`),
  });
  const onReadStore = <T>(work: (db: Database.Database) => T): T => {
    const db = new Database(join(t.service.config.dataDir, 'read.db'), { timeout: 10_000 });
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  /** A new campaign of these customers, each called once. */
  const addAndCall = async (name: string, keys: string[]) => {
    const id = (await call('POST', '/campaigns/create', { name, campaignType: 'emi' })).body.data.id;
    const records = keys.map((key) => loanRecord(key, { phone_number: uniquePhone('+9198') }));
    expect((await call('POST', '/customers/add/bulk', { campaignId: id, records })).status).toBe(201);
    expect((await call('POST', `/initiate/${id}/calls`, { agentId: agent, dispositionId: group })).status).toBe(200);
    return id;
  };

  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
    org = await t.newOrganization('collection');
    const ptp = (await call('POST', '/dispositions', { name: 'Promise to pay' })).body.data.id;
    const later = (await call('POST', '/dispositions', { name: 'Call back' })).body.data.id;
    group = (await call('POST', '/dispositions/groups/create', { name: 'Outcomes', dispositions: [ptp, later] })).body
      .data.id;
    agent = (await call('POST', '/agents', { name: 'Asha', language: 'en', voiceId: 'PAbs15oBevLzXsUu4dCi' })).body.data
      .id;
    const numbers = await get('/numbers/search?limit=100');
    const number = numbers.find((n: { voice_enabled: boolean }) => n.voice_enabled).number;
    expect((await call('POST', '/numbers/buyNumbers', [{ number, provider: 'builtin' }])).status).toBe(200);
    const template = (
      await call('POST', '/chat/templates', { name: 'Reminder', language: 'en', body: 'Hello {{first_name}}.' })
    ).body.data.id;
    campaign = await addAndCall('Run', ['A0', 'A1', 'A2', 'A3', 'A4', 'A5']);
    const chats = await call('POST', `/initiate/${campaign}/chat`, {
      templateId: template,
      conversationSettings: { agentId: agent, dispositionId: group },
    });
    expect(chats.status).toBe(200);
    await settled(6, 6);
    admin = await createAdminComposition(t.service.config);
  });
  afterAll(async () => {
    await admin?.close();
    await t?.stop();
  });

  it('lists the rollups among the read models, and verify finds no difference in them', async () => {
    expect(await admin.projections.names()).toContain(ROLLUPS);
    const report = await admin.projections.verify([ROLLUPS]);
    expect(report.projections).toEqual([ROLLUPS]);
    expect(report.differences).toEqual([]);
    // One bucket per organization, campaign, agent and day: the calls and chats of today.
    expect(report.compared[ROLLUPS]).toBeGreaterThan(0);
  });

  it('verify names a bucket changed in the live read model; rebuild repairs it, and the runner goes on in the new generation', async () => {
    const before = await figures();
    const [bucket] = onReadStore((db) =>
      db.prepare<[], { id: string; doc: string }>(`SELECT id, doc FROM rmv3_${ROLLUPS}_doc ORDER BY id`).all(),
    );
    expect(bucket).toBeDefined();
    const talk = JSON.parse(bucket!.doc).talk_seconds as number;
    onReadStore((db) =>
      db
        .prepare(`UPDATE rmv3_${ROLLUPS}_doc SET doc = json_set(doc, '$.talk_seconds', 987654) WHERE id = ?`)
        .run(bucket!.id),
    );
    // The rollups answer whole days: the change shows.
    expect(await figures()).not.toEqual(before);

    const report = await admin.projections.verify([]);
    expect(report.differences).toEqual([
      { collection: ROLLUPS, id: bucket!.id, kind: 'field', path: 'talk_seconds', live: 987654, rebuilt: talk },
    ]);

    const summary = await admin.projections.rebuild([ROLLUPS]);
    expect(summary.projections).toEqual([ROLLUPS]);
    expect(summary.previous).toEqual({ [ROLLUPS]: 0 });
    expect(await figures()).toEqual(before);
    expect((await admin.projections.verify([ROLLUPS])).differences).toEqual([]);

    // The rollups' runner commits into the generation now in use.
    await addAndCall('After the switch', ['B0', 'B1']);
    await settled(8, 6);
    const agents = await until(
      () => get('/analytics/agents'),
      (rows) => rows[0]?.calls === 8,
    );
    expect(agents).toMatchObject([{ agent_id: agent, calls: 8 }]);
    const tables = onReadStore((db) =>
      db
        .prepare<[], { name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rmv3_${ROLLUPS}%' ORDER BY name`,
        )
        .all()
        .map((r) => r.name),
    );
    expect(tables).toEqual([`rmv3_${ROLLUPS}__g1`, `rmv3_${ROLLUPS}__g1_doc`]);
    expect((await admin.projections.verify([ROLLUPS])).differences).toEqual([]);
  });
});
