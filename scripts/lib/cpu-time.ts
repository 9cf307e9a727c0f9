/**
 * CPU time of a process tree, for speed figures on a shared machine: the load of other jobs moves
 * wall time 2–5×, CPU time far less (Linux /proc only).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) of process `pid` and all its descendants, from /proc. */
export function treeCpuSeconds(pid: number): number {
  const tick = 100; // USER_HZ on Linux
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(d), { ppid: Number(rest[1]), cpu: (Number(rest[11]) + Number(rest[12])) / tick });
    } catch {
      // the process ended meanwhile
    }
  }
  let total = 0;
  const walk = (p: number) => {
    total += stats.get(p)?.cpu ?? 0;
    for (const [child, s] of stats) if (s.ppid === p) walk(child);
  };
  walk(pid);
  return total;
}

