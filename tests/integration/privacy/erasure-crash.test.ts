/**
 * An erasure cut by SIGKILL (docs/privacy.md, "Erasure"): right after it is recorded, once the keys are
 * deleted, while the read models mask what it names, and before the read store is compacted. The
 * restarted service finishes it, by itself at start or when the erasure is sent again, and then no byte
 * of the subject (their name, their number, their keys) is left in any file of the data directory,
 * write-ahead logs included. Meanwhile the export answers 503, never the subject in the clear, and
 * /readyz is not ready; a re-run answers 404 only once nothing of the subject is left.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { eventRows } from '../../support/event-file';
import { filesUnder, personRecord, tracesUnder, type Person } from '../../support/privacy';
import { restartableServer } from '../../support/server-process';
import { tempDir } from '../../support/temp-dir';
import { describeOnFirstPass } from '../../support/check-pass';

jest.setTimeout(240_000);

const ADMIN = 'erasure-crash-admin';
/** Records per subject: enough that masking and compacting take a while, so a kill can fall between them. */
const RECORDS = 400;

const person = (i: number, first: string, last: string): Person => ({
  loanId: `LN-${first.slice(0, 3).toUpperCase()}`,
  first,
  last,
  phone: `+9198111${String(20_000 + i * 1_111).padStart(5, '0')}`,
});
const SUBJECTS = [
  person(1, 'Thaddeusz', 'Quorvane'),
  person(2, 'Ismeralda', 'Vantrobe'),
  person(3, 'Corvinius', 'Haldrake'),
  person(4, 'Philippaz', 'Brennock'),
];
/** Someone never erased: what an erasure must leave. */
const KEPT = person(5, 'Ottilienne', 'Marwick');

const recordsOf = (p: Person) =>
  Array.from({ length: RECORDS }, (_, i) => personRecord({ ...p, loanId: `${p.loanId}-${i}` }));

/** The service as a process of its own on `dataDir`, and requests to it. */
async function serviceOn(dataDir: string) {
  const env = {
    DATA_DIR: dataDir,
    JWT_SECRET: 'erasure-crash-secret-erasure-crash',
    ADMIN_TOKEN: ADMIN,
    SERVICES: 'agent',
    LEASE_TTL_MS: '1000',
  };
  return restartableServer(env, ADMIN);
}
type Service = Awaited<ReturnType<typeof serviceOn>>;

/** Reads the service's files as they are now, each on a read-only connection of its own. */
function filesOf(dataDir: string) {
  const open = (name: string) => new Database(join(dataDir, name), { readonly: true, timeout: 10_000 });
  const events = open('events.db');
  const keys = open('keys.db');
  const reads = open('read.db');
  const erasures = events.prepare<[], { position: number; type: string; data: string }>(
    "SELECT position, type, data FROM events WHERE type LIKE 'PersonalDataEras%' ORDER BY position",
  );
  const keyCount = keys.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM keys_v1');
  const customers = reads.prepare<[], { position: number }>(
    "SELECT position FROM checkpoints_v3 WHERE projection = 'customers'",
  );
  return {
    erasures: () => erasures.all().map((row) => ({ ...row, data: JSON.parse(row.data) })),
    keyCount: () => keyCount.get()!.n,
    /** The position the customers' read model applied, the one with most to mask here. */
    projected: () => customers.get()!.position,
    /** Every key in the file, by its subject. */
    keysBySubject: () => {
      const bySubject = new Map<string, Buffer[]>();
      for (const row of keys
        .prepare<[], { subject_id: string; key: Buffer }>('SELECT subject_id, key FROM keys_v1')
        .all())
        bySubject.set(row.subject_id, [...(bySubject.get(row.subject_id) ?? []), row.key]);
      return bySubject;
    },
    close() {
      for (const db of [events, keys, reads]) db.close();
    },
  };
}
type Files = ReturnType<typeof filesOf>;

/** What the watch knows when it decides to cut: the erasure's events recorded so far, and how the files stand. */
type Seen = {
  requested: { position: number } | null;
  erased: { position: number } | null;
  keysBefore: number;
  files: Files;
};

/** The points to cut at, each as the watch sees it. */
const CUTS: [string, (seen: Seen) => boolean, 're-run' | 'restart'][] = [
  ['right after the erasure is requested', (s) => s.requested !== null, 're-run'],
  ['once the keys are deleted', (s) => s.requested !== null && s.files.keyCount() < s.keysBefore, 'restart'],
  [
    'while the read models mask its documents',
    (s) => s.erased !== null && s.files.projected() < s.erased.position,
    're-run',
  ],
  [
    'before the read store is compacted',
    (s) => s.erased !== null && s.files.projected() >= s.erased.position,
    'restart',
  ],
];

/** Sends the erasure and kills the service once `cut` holds; gives the subjects it erases, and their keys. */
async function killDuring(
  service: Service,
  dataDir: string,
  subject: Person,
  cut: (seen: Seen) => boolean,
): Promise<{ subjects: string[]; keys: Buffer[] }> {
  const files = filesOf(dataDir);
  try {
    const before = files.erasures().length;
    const keyCount = files.keyCount();
    // Every key as it is now: after the erasure, none of its subjects' may be left.
    const keysBefore = files.keysBySubject();
    const sent = service.request('POST', '/api/v1/privacy/erase', { phone: subject.phone }).catch(() => null);
    for (const until = Date.now() + 30_000; ;) {
      const recorded = files.erasures().slice(before);
      const requested = recorded.find((e) => e.type === 'PersonalDataErasureRequested') ?? null;
      const erased = recorded.find((e) => e.type === 'PersonalDataErased') ?? null;
      if (cut({ requested, erased, keysBefore: keyCount, files })) {
        await service.kill();
        await sent;
        const after = files.erasures().slice(before);
        // The kill came before the erasure completed: there is something to finish.
        expect(after.map((e) => e.type)).not.toContain('PersonalDataErasureCompleted');
        const subjects = requested!.data.subjectIds as string[];
        return { subjects, keys: subjects.flatMap((id) => keysBefore.get(id) ?? []) };
      }
      if (Date.now() > until) throw new Error('the erasure never reached the point to cut it');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    files.close();
  }
}

/** Where the key's bytes are found among the data directory's files. */
const keyTraces = (dataDir: string, keys: readonly Buffer[]) =>
  filesUnder(dataDir).flatMap(({ path, bytes }) => keys.filter((key) => bytes.includes(key)).map(() => path));

describeOnFirstPass('an erasure cut by SIGKILL', () => {
  const dir = tempDir();
  let service: Service;

  beforeAll(async () => {
    service = await serviceOn(dir.path);
    const org = (await service.request('POST', '/admin/v1/organizations', { name: 'Cut', type: 'collection' })).body
      .data.id as string;
    service.useToken((await service.request('POST', `/admin/v1/organizations/${org}/tokens`, {})).body.data.token);
    const campaignId = (
      await service.request('POST', '/api/v1/campaigns/create', { name: 'Erasures', campaignType: 'emi' })
    ).body.data.id as string;
    const records = [...SUBJECTS.flatMap(recordsOf), ...recordsOf(KEPT)];
    expect((await service.request('POST', '/api/v1/customers/add/bulk', { campaignId, records })).status).toBe(201);
    // Once the read models hold every record (the export waits for them).
    for (const p of [...SUBJECTS, KEPT]) {
      const exported = await service.read(`/api/v1/privacy/export?phone=${encodeURIComponent(p.phone)}`);
      expect(exported.body.data.customers).toHaveLength(RECORDS);
    }
  });
  afterAll(async () => {
    await service?.stop();
    dir.remove();
  });

  it.each(CUTS.map(([when, cut, then], i) => [when, then, cut, SUBJECTS[i]!] as const))(
    '%s, then %s: finishes it, and leaves no byte of the subject in any file',
    async (_when, then, cut, subject) => {
      expect(tracesUnder(dir.path, [subject]).length).toBeGreaterThan(0);
      const { subjects, keys } = await killDuring(service, dir.path, subject, cut);
      expect(keys.length).toBeGreaterThan(0);

      await service.restart();
      // Until the erasure is finished, the subject's export is refused; once it is, it holds no name or number.
      const exported = await service.request('GET', `/api/v1/privacy/export?loan_id=${subject.loanId}-0`);
      if (exported.status === 503) expect(exported.headers.get('retry-after')).toMatch(/^\d+$/);
      else expect(exported.status).toBe(200);
      expect(exported.text).not.toContain(subject.first);
      expect(exported.text).not.toContain(subject.phone.slice(1));

      if (then === 're-run') {
        // Answered once the erasure is finished: nothing is left under that number.
        const again = await service.request('POST', '/api/v1/privacy/erase', { phone: subject.phone });
        expect([again.status, again.body.message]).toEqual([404, 'No personal data of this subject was found']);
      }
      for (let i = 0; ; i++) {
        const ready = await service.request('GET', '/readyz');
        if (ready.status === 200) break;
        if (i > 300) throw new Error(`never ready: ${ready.text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const erasures = eventRows<{ type: string; data: string }>(
        dir.path,
        "SELECT type, data FROM events WHERE type = 'PersonalDataErasureCompleted'",
      );
      expect(erasures.length).toBe(CUTS.findIndex(([, c]) => c === cut) + 1);
      expect(tracesUnder(dir.path, [subject])).toEqual([]);
      expect(keyTraces(dir.path, keys)).toEqual([]);
      expect(subjects.length).toBeGreaterThan(0);
      // The others are all there.
      expect(tracesUnder(dir.path, [KEPT]).length).toBeGreaterThan(0);
      const kept = await service.read(`/api/v1/privacy/export?phone=${encodeURIComponent(KEPT.phone)}`);
      expect(kept.body.data.customers).toHaveLength(RECORDS);
    },
  );
});
