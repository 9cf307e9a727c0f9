/**
 * CPU time of a process tree, for speed figures on a shared machine: the load of other jobs moves
 * wall time 2–5×, CPU time far less (Linux /proc only).
 */
import { readFileSync } from 'node:fs';
import { treeOf } from '../../e2e/support/bridge-process.ts';

const USER_HZ = 100; // /proc's clock ticks per second on Linux

/** CPU seconds (user + system) of process `pid` and all its descendants, from /proc. */
export function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of treeOf(pid)) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]); // utime, stime
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / USER_HZ;
}
