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

/**
 * Fields of a stat file (/proc/PID/stat, /proc/self/task/TID/stat) after the command name (which may
 * hold spaces): [state, ppid, ...]; utime and stime are the 12th and 13th, in clock ticks of 10 ms
 * (USER_HZ is 100 on Linux).
 */
const fieldsOf = (path: string): string[] | undefined => {
  const stat = read(path);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
};
const statFields = (pid: number): string[] | undefined => fieldsOf(`/proc/${pid}/stat`);
const cpuTicks = (fields: string[]): number => Number(fields[11]) + Number(fields[12]);

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
  const ticks = children.reduce((sum, pid) => {
    const fields = statFields(pid);
    return sum + (fields ? cpuTicks(fields) : 0);
  }, 0);
  return (own.user + own.system) / 1000 + ticks * 10;
}

/**
 * CPU milliseconds so far of each thread of this process, by thread id, where the system tells them
 * (Linux; empty elsewhere). The main thread's id is the process id.
 */
export function threadCpuMs(): Map<number, number> {
  const cpu = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return cpu;
  }
  for (const tid of tids) {
    const fields = fieldsOf(`/proc/self/task/${tid}/stat`); // undefined: the thread ended in between
    if (fields) cpu.set(Number(tid), cpuTicks(fields) * 10);
  }
  return cpu;
}

/** CPU milliseconds of the main thread so far (Linux's per-thread accounting); null elsewhere. */
export function mainThreadCpuMs(): number | null {
  const fields = fieldsOf(`/proc/self/task/${process.pid}/stat`);
  return fields ? cpuTicks(fields) * 10 : null;
}
