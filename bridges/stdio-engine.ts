/**
 * A federated RCP engine over stdio (§5.1) as a `Transport`: the child process's stdin takes
 * frames, each stdout line is a frame. A line that is not JSON (a server printing a banner
 * before `initialize`, say) or longer than the limit is dropped with one clear line on stderr,
 * never delivered; the child's own stderr is passed on, prefixed with the engine's id. The
 * transport closes when the child exits (the relay then restarts it, bridges/engine-relay.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineBuffer } from '../src/transport/ndjson.ts';
import type { Transport } from '../src/transport/transport.ts';

/** Longest stdout line read from an engine (a bigger one is dropped). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export class StdioEngineTransport implements Transport {
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly child: ChildProcess;
  /** How the child ended: `code N`, `signal S`, or the spawn error. */
  exitReason: string | undefined;
  private readonly started = Date.now();
  private framed = false;
  private closed = false;
  private skipping = false;

  constructor(
    readonly id: string,
    command: readonly string[],
    private readonly diag: (line: string) => void,
  ) {
    this.child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = new LineBuffer();
    let pendingBytes = 0;
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      pendingBytes += chunk.length;
      const lines = out.push(chunk);
      if (lines.length) pendingBytes = 0;
      if (pendingBytes > MAX_LINE_BYTES) {
        // An endless line: give it up (and the rest of it up to its newline).
        out.flush();
        pendingBytes = 0;
        if (!this.skipping) this.diag(`engine '${id}' wrote a stdout line over ${MAX_LINE_BYTES} bytes: dropped`);
        this.skipping = true;
        return;
      }
      for (const line of lines) this.line(line);
    });
    const err = new LineBuffer();
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => err.push(chunk).forEach((l) => this.diag(`[${id}] ${l.slice(0, 500)}`)));
    this.child.stdin!.on('error', () => undefined); // EPIPE from a child that died: its exit reports it
    this.child.on('error', (e) => {
      this.exitReason = `could not start (${e.message})`;
      this.end();
    });
    this.child.on('exit', (code, signal) => {
      this.exitReason ??= signal ? `signal ${signal}` : `code ${code}`;
      this.end();
    });
  }

  /** Milliseconds since the child was spawned. */
  get uptimeMs(): number {
    return Date.now() - this.started;
  }

  start(): void {}

  send(frame: string): void {
    if (this.closed || !this.child.stdin!.writable) return;
    this.child.stdin!.write(`${frame}\n`);
  }

  /** Closes stdin (the engine's implicit shutdown, §5.1), then kills it if it lingers. */
  close(): void {
    if (this.closed) return;
    this.child.stdin!.end();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    kill.unref();
    this.child.once('exit', () => clearTimeout(kill));
    this.end();
  }

  private line(line: string): void {
    if (this.skipping) {
      this.skipping = false; // the tail of a dropped line
      return;
    }
    let ok = false;
    try {
      const v: unknown = JSON.parse(line);
      ok = typeof v === 'object' && v !== null;
    } catch {
      ok = false;
    }
    if (!ok) {
      this.diag(`engine '${this.id}' wrote a line that is not a JSON-RPC frame to stdout${this.framed ? '' : ' before initialize'} (stdout must carry frames only, §5.1): ${JSON.stringify(line.slice(0, 120))}; ignored`);
      return;
    }
    this.framed = true;
    this.onmessage?.(line);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
