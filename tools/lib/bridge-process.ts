/**
 * Bridge processes for the e2e suite and the soak script: a stdio bridge driven line by line,
 * an HTTP bridge on a given port, and SIGKILL of a process's whole tree (the bridge, Node's
 * children and Chromium, which Playwright starts in a process group of its own).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface StdioBridge {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  send(frame: unknown): void;
  /** Resolves with the first line (parsed) that satisfies `pred`, waiting for it to arrive. */
  waitFor(pred: (msg: any) => boolean): Promise<any>;
  /** The response to request `id`. */
  response(id: unknown): Promise<any>;
  /** Closes stdin (EOF) and resolves with the exit code. */
  end(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts `rcp:stdio` with `args`; stdin stays open until `end()`. */
export function spawnStdio(args: string[] = []): StdioBridge {
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts', ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let err = '';
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter((l) => l !== ''));
    waiters.splice(0).forEach((w) => w());
  });
  child.stderr!.on('data', (d) => (err += d));
  child.stdin!.on('error', () => undefined); // a killed bridge: EPIPE is expected
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => (waiters.splice(0).forEach((w) => w()), ok(code))));
  const parsed: unknown[] = [];
  const waitFor = async (pred: (msg: any) => boolean) => {
    for (;;) {
      while (parsed.length < lines.length) parsed.push(JSON.parse(lines[parsed.length]));
      const hit = parsed.find(pred);
      if (hit !== undefined) return hit;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`bridge exited before the frame came: ${err.slice(-2000)}`);
      await new Promise<void>((ok) => waiters.push(ok));
    }
  };
  return {
    child,
    lines,
    stderr: () => err,
    send: (frame) => child.stdin!.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`),
    waitFor,
    response: (id) => waitFor((m) => !Array.isArray(m) && m.id === id && !('method' in m)),
    end: () => {
      child.stdin!.end();
      return exited;
    },
    exited,
  };
}

/** Starts `rcp:http` on `port` with `args`; resolves once it listens. */
export async function startHttp(port: number, args: string[] = [], env: Record<string, string> = {}): Promise<{ child: ChildProcess; stderr(): string; stop(): Promise<void> }> {
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-http.ts', '--port', String(port), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  await new Promise<void>((ok, fail) => {
    child.stderr!.on('data', (d) => {
      stderr += d;
      if (stderr.includes('RCP over HTTP at')) ok();
    });
    child.on('exit', () => fail(new Error(`bridge exited: ${stderr}`)));
  });
  return {
    child,
    stderr: () => stderr,
    stop: async () => {
      const gone = new Promise((ok) => child.on('exit', ok));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** `pid` and every descendant of it, parents first. */
export function treeOf(pid: number): number[] {
  const parent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(ppid, [...(parent.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parent.get(tree[i]) ?? []));
  return tree;
}

/** SIGKILLs `pid` and every descendant at once (frozen first, so none reacts to another's death). */
export function killTree(pid: number): number[] {
  const tree = treeOf(pid);
  for (const p of tree) trySignal(p, 'SIGSTOP');
  for (const p of tree) trySignal(p, 'SIGKILL');
  return tree;
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
