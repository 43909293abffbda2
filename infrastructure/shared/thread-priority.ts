/**
 * Lowers the scheduling priority of the calling thread (not the whole process). Synthesis threads are
 * throughput work; giving them a higher nice value lets the threads that answer requests and commit
 * events run as soon as they wake, instead of waiting for a time slice behind busy synthesis. Linux
 * only (a thread's id is its /proc/thread-self entry); elsewhere it does nothing. Raising niceness
 * needs no privilege.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux' || niceness <= 0) return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, niceness));
    return true;
  } catch {
    return false;
  }
}
