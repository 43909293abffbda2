/**
 * Many concurrent requests add dispositions to groups, remove them, and delete dispositions and
 * groups. Whatever interleaving happens, no disposition that is in a group may be deleted: checked on
 * the read models afterwards and on every prefix of the event history.
 */
import { catalogDecider, catalogStreamId, type CatalogEvent } from '../../../domain/dispositions/catalog';
import { startTestService, type TestService } from '../../support/test-service';

const SPEC_STATUSES = new Set([200, 201, 400, 404, 409]);

describe('dispositions under concurrent requests (sqlite)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ store: 'sqlite' });
  });
  afterAll(() => t.stop());

  it('never deletes a disposition that is in a group', async () => {
    const org = await t.newOrganization();
    const call = (method: string, path: string, body?: unknown) =>
      t.request(method, `/api/v1${path}`, { token: org.token, body });
    const dispositions: string[] = [];
    for (let i = 0; i < 12; i++)
      dispositions.push((await call('POST', '/dispositions', { name: `D${i}` })).body.data.id);
    const groups: string[] = [];
    for (let i = 0; i < 4; i++)
      groups.push((await call('POST', '/dispositions/groups/create', { name: `G${i}` })).body.data.id);

    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const operations = Array.from({ length: 240 }, () => {
      const d = dispositions[random(dispositions.length)]!;
      const g = groups[random(groups.length)]!;
      switch (random(5)) {
        case 0:
        case 1:
          return () => call('POST', `/dispositions/groups/${g}/dispositions`, { dispositions: [d] });
        case 2:
          return () => call('DELETE', `/dispositions/groups/${g}/dispositions`, { dispositions: [d] });
        case 3:
          return () => call('DELETE', `/dispositions/${d}`);
        default:
          return () =>
            call('PUT', `/dispositions/groups/${g}`, { dispositions: [d, dispositions[random(dispositions.length)]!] });
      }
    });
    const replies = await Promise.all(operations.map((op) => op()));
    const statuses = replies.map((r) => r.status);
    for (const status of statuses) expect(SPEC_STATUSES.has(status)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(20);
    expect(replies.some((r) => /^Cannot delete: Disposition is used in group\(s\): /.test(r.body?.message ?? ''))).toBe(
      true,
    );

    // Read side: every member of every group still exists.
    const list = await call('GET', '/dispositions/groups/list?limit=100');
    for (const group of list.body.data) {
      for (const member of group.dispositions) expect((await call('GET', `/dispositions/${member}`)).status).toBe(200);
    }
    // Write side: replaying the history, no deletion ever hit a grouped disposition.
    const history = await t.service.events.readStream(catalogStreamId(org.id));
    let state = catalogDecider.initialState();
    for (const recorded of history) {
      const event = { type: recorded.type, data: recorded.data } as CatalogEvent;
      if (event.type === 'DispositionDeleted') {
        const holders = [...state.groups.values()].filter((g) => g.dispositionIds.includes(event.data.dispositionId));
        expect(holders).toEqual([]);
      }
      state = catalogDecider.evolve(state, event);
    }
    expect(history.filter((e) => e.type === 'DispositionDeleted').length).toBeGreaterThan(0);
  });
});
