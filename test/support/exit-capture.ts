/** Runs a command-line parse in-process: process.exit, the console and stderr captured (tools/lib/args.ts, bridges/cli.ts). */
import { vi } from 'vitest';

/** What `parse` returned, or the exit status it asked for (`code`; undefined: none), and everything it printed. */
export function captureExit<T>(parse: () => T): { parsed: T | undefined; code: number | undefined; out: string[] } {
  const out: string[] = [];
  vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    throw new Error(`exit ${code}`);
  }) as never);
  vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
  vi.spyOn(console, 'error').mockImplementation((s: string) => void out.push(s));
  vi.spyOn(process.stderr, 'write').mockImplementation(((s: string) => out.push(s)) as never);
  try {
    return { parsed: parse(), code: undefined, out };
  } catch (e) {
    const m = /^exit (\d+)$/.exec((e as Error).message);
    if (!m) throw e;
    return { parsed: undefined, code: Number(m[1]), out };
  }
}
