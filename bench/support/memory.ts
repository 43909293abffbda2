/**
 * Resident memory and CPU time of this process together with its child processes (a native speech
 * engine's workers run in processes of their own), from /proc: what the machine spends, not only
 * this process.
 */
import { readdirSync, readFileSync } from 'node:fs';

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process has ended
  }
};

/** Fields of /proc/PID/stat after the command name (which may hold spaces): [state, ppid, ...]. */
const statFields = (pid: number): string[] | undefined => {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
};

/** The processes whose parent is this one. */
export const childProcessIds = (): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => statFields(pid)?.[1] === String(process.pid));

const residentBytes = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
};

/** Resident bytes of this process and its children now. */
export const residentWithChildren = (children: readonly number[]): number =>
  process.memoryUsage.rss() + children.reduce((sum, pid) => sum + residentBytes(pid), 0);

/** CPU milliseconds (user + system) of this process and of the given children, so far. */
export function cpuMsWithChildren(children: readonly number[]): number {
  const own = process.cpuUsage();
  // utime and stime are fields 14 and 15 of the stat line, in clock ticks (100 per second on Linux).
  const ticks = children.reduce((sum, pid) => {
    const fields = statFields(pid);
    return sum + (fields ? Number(fields[11]) + Number(fields[12]) : 0);
  }, 0);
  return (own.user + own.system) / 1000 + ticks * 10;
}
