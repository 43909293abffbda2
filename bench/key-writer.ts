/**
 * CPU time the SQLite key store's writer thread (infrastructure/sqlite/sqlite-key-writer.worker.ts)
 * spends making 10,000 new subject keys, as a bulk add of 10,000 new customers asks for them: every key
 * asked in one turn, so one batch and one transaction. Each round opens a fresh `keys.db` (holding
 * `--existing` keys made beforehand, as a file in service would), starts the writer and warms it up with
 * a batch of its own, then measures the batch. The writer's CPU is read from Linux's per-thread
 * accounting (/proc/self/task/TID/schedstat, in nanoseconds): on a busy machine it is steadier than the
 * batch's wall time, which is printed too, with the main thread's CPU.
 *
 * `--against DIR` alternates rounds with the key store of another checkout (DIR holds its sources):
 * before and after a change, measured on the same machine at the same time.
 *
 *   npx tsx bench/key-writer.ts [--keys 10000] [--existing 0] [--rounds 7] [--against /path/to/checkout]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SqliteKeyStore } from '../infrastructure/sqlite/sqlite-key-store';
import { tempDir } from '../tests/support/temp-dir';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const KEYS = Number(arg('keys') ?? 10_000);
const EXISTING = Number(arg('existing') ?? 0);
const ROUNDS = Number(arg('rounds') ?? 7);
const AGAINST = arg('against');
const ORG = 'org-bench';

/** CPU nanoseconds so far of each thread of this process, by thread id. */
function threadCpuNs(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      cpu.set(Number(tid), Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread ended in between.
    }
  }
  return cpu;
}

type Open = (file: string) => SqliteKeyStore;
const storeOf = async (root: string): Promise<Open> => {
  const module = (await import(join(resolve(root), 'infrastructure/sqlite/sqlite-key-store'))) as {
    SqliteKeyStore: typeof SqliteKeyStore;
  };
  return (file) => module.SqliteKeyStore.open(file);
};

/** Numbers of a round: none of them known to the file, so every key asked is made. */
const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `91${String(7_000_000_000 + from + i)}`);

async function askAll(keys: SqliteKeyStore, phones: readonly string[]): Promise<void> {
  await Promise.all(phones.map((phone) => keys.subjectKey(ORG, phone)));
}

type Measured = { writerMs: number; mainMs: number; wallMs: number };

async function round(open: Open): Promise<Measured> {
  const dir = tempDir('bench-key-writer-');
  const before = new Set(threadCpuNs().keys());
  const keys = open(join(dir.path, 'keys.db'));
  try {
    for (let made = 0; made < EXISTING; made += 10_000)
      await askAll(keys, numbers(1_000_000 + made, Math.min(10_000, EXISTING - made)));
    // Warm-up: the writer's code compiled, as in a service that has made keys before.
    await askAll(keys, numbers(500_000, 1_000));
    const writers = [...threadCpuNs().keys()].filter((tid) => !before.has(tid) && tid !== process.pid);
    const c0 = threadCpuNs();
    const t0 = performance.now();
    await askAll(keys, numbers(0, KEYS));
    const wallMs = performance.now() - t0;
    const c1 = threadCpuNs();
    const spent = (tid: number) => ((c1.get(tid) ?? 0) - (c0.get(tid) ?? 0)) / 1e6;
    return { writerMs: writers.reduce((sum, tid) => sum + spent(tid), 0), mainMs: spent(process.pid), wallMs };
  } finally {
    await keys.close();
    dir.remove();
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const list = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(', ');

async function main() {
  const variants: [string, Open][] = [['this checkout', await storeOf(join(__dirname, '..'))]];
  if (AGAINST) variants.unshift([AGAINST, await storeOf(AGAINST)]);
  const results = variants.map((): Measured[] => []);
  for (let r = 0; r < ROUNDS; r++)
    for (let v = 0; v < variants.length; v++) {
      const measured = await round(variants[v]![1]);
      results[v]!.push(measured);
      console.log(
        `round ${r + 1}  ${variants[v]![0]}  writer ${measured.writerMs.toFixed(1)} ms  main ${measured.mainMs.toFixed(1)} ms  wall ${measured.wallMs.toFixed(0)} ms`,
      );
    }
  for (let v = 0; v < variants.length; v++) {
    const measured = results[v]!;
    const writer = measured.map((m) => m.writerMs);
    const wall = measured.map((m) => m.wallMs);
    console.log(
      `${variants[v]![0]}: ${KEYS} new subject keys (${EXISTING} kept before), ${ROUNDS} rounds: writer thread CPU median ${median(writer).toFixed(1)} ms (${list(writer)}), wall median ${median(wall).toFixed(0)} ms (${list(wall)})`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
