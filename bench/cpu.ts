/**
 * CPU time (user + system, ms) of every process below this one — the browser the bench started
 * and its renderers, GPU and storage processes — from /proc. On a machine shared with other work,
 * CPU time moves far less than wall time. Undefined where /proc is missing (not Linux).
 */
import { existsSync, readFileSync } from 'node:fs';
import { treeOf } from '../e2e/support/bridge-process.ts';

/** /proc's clock ticks per second (USER_HZ), 100 on Linux. */
const TICKS_PER_S = 100;

export function cpuMsOfChildren(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  let ticks = 0;
  for (const pid of treeOf(process.pid).slice(1)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name: state is field 3, utime 14, stime 15.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / TICKS_PER_S;
}
