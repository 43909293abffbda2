/**
 * The server is killed with SIGKILL while answering a stream of commands. After a restart every
 * acknowledged write is there, and no projection applied any event twice: each read-model document
 * has been through exactly as many events as the store holds for it.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../infrastructure/sqlite/sqlite-event-store';
import { SqliteReadStore } from '../../infrastructure/sqlite/sqlite-read-store';
import { dispositionsProjection } from '../../projections/dispositions/dispositions';
import { dispositionGroupsProjection } from '../../projections/dispositions/disposition-groups';
import { projectionsOver } from '../../api/modules';
import { readAfterCatchUp, startServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { describeOnFirstPass } from '../support/check-pass';

jest.setTimeout(120_000);

const ADMIN = 'crash-admin-token';

describeOnFirstPass('crash recovery (sqlite, separate process)', () => {
  it('keeps every acknowledged command across SIGKILL and applies no event twice', async () => {
    const dir = tempDir();
    const env = { DATA_DIR: dir.path, JWT_SECRET: 'crash-test-secret-crash-test-secret', ADMIN_TOKEN: ADMIN };
    const first = await startServerProcess(env);
    const post = (url: string, path: string, token: string, body: unknown) =>
      fetch(url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const org = (await (
      await post(first.url, '/admin/v1/organizations', ADMIN, { name: 'Crash Co', type: 'collection' })
    ).json()) as any;
    const token = (
      (await (await post(first.url, `/admin/v1/organizations/${org.data.id}/tokens`, ADMIN, {})).json()) as any
    ).data.token as string;

    const acknowledged: { kind: 'disposition' | 'group'; id: string }[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const isGroup = i % 5 === 4;
          const reply = await post(
            first.url,
            isGroup ? '/api/v1/dispositions/groups/create' : '/api/v1/dispositions',
            token,
            { name: `w${w}-${i}` },
          );
          if (reply.status === 201) {
            acknowledged.push({ kind: isGroup ? 'group' : 'disposition', id: ((await reply.json()) as any).data.id });
            if (acknowledged.length >= 200 && !killed) {
              killed = true;
              first.child.kill('SIGKILL');
            }
          }
        } catch {
          return; // connection cut by the kill
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    await first.exited;

    const second = await startServerProcess(env);
    try {
      for (const { kind, id } of acknowledged) {
        const path = kind === 'group' ? `/api/v1/dispositions/groups/${id}` : `/api/v1/dispositions/${id}`;
        const reply = await readAfterCatchUp(second.url + path, token);
        expect({ id, status: reply.status }).toEqual({ id, status: 200 });
      }
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exited).toBe(0);

    const events = new SqliteEventStore(join(dir.path, 'events.db'));
    const reads = new SqliteReadStore(join(dir.path, 'read.db'));
    try {
      const all = await events.readAll();
      // The read models the service keeps over this store (no audit event index: the store searches its events).
      for (const projection of projectionsOver(events))
        expect(await reads.checkpoint(projection.name)).toBe(all[all.length - 1]!.position);
      for (const projection of [dispositionsProjection, dispositionGroupsProjection]) {
        const expected = new Map<string, number>();
        for (const e of all.filter((x) => projection.eventTypes.includes(x.type)))
          for (const id of projection.documentIds(e)) expected.set(id, (expected.get(id) ?? 0) + 1);
        const stored = await (await reads.collection(projection.collection)).getStored([...expected.keys()]);
        for (const [id, count] of expected)
          expect({ id, version: stored.get(id)?.version }).toEqual({ id, version: count });
      }
    } finally {
      await events.close();
      await reads.close();
      dir.remove();
    }
  });
});
