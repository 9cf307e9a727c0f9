/**
 * CPU time (user + system) of a process tree, for speed figures on a shared machine: the load of
 * other jobs moves wall time 2–5×, CPU time far less. Read from /proc (Linux only).
 */
import { existsSync, readFileSync } from 'node:fs';
import { treeOf } from './bridge-process.ts';

/** /proc's clock ticks per second (USER_HZ), 100 on Linux. */
const USER_HZ = 100;

/** Ticks (utime + stime) of each pid; one that ended meanwhile counts nothing. */
function ticksOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name: state is field 3, utime 14, stime 15.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}

/** CPU seconds of process `pid` and all its descendants. */
export function treeCpuSeconds(pid: number): number {
  return ticksOf(treeOf(pid)) / USER_HZ;
}

/**
 * CPU milliseconds of every process below this one (a browser it started and its renderers, GPU
 * and storage processes); undefined where /proc is missing.
 */
export function cpuMsOfChildren(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  return (ticksOf(treeOf(process.pid).slice(1)) * 1000) / USER_HZ;
}
