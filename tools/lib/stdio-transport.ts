/**
 * A child process's stdin/stdout as a frame `Transport` (§5.1 NDJSON), for the conformance CLI:
 * one line out per frame, every stdout line in is a frame (blank lines ignored, anything else
 * delivered as is so the checker can judge it), stderr kept for the checks, raw writes allowed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineBuffer } from '../../src/transport/ndjson.ts';
import type { Transport } from '../../src/transport/transport.ts';

/** A stdout line longer than this is cut (a server that never sends a newline cannot exhaust memory). */
const MAX_LINE = 64 * 1024 * 1024;
/** The tail of stderr kept. */
const MAX_STDERR = 1024 * 1024;

export class StdioTransport implements Transport {
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly child: ChildProcess;
  private err = '';
  private readonly lines = new LineBuffer();
  private pendingBytes = 0;
  private exited = false;

  constructor(command: string, args: readonly string[], cwd?: string) {
    this.child = spawn(command, [...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdin!.on('error', () => undefined); // EPIPE once the server exited: reported as a closed connection
    this.child.on('error', (e) => {
      this.err += `\n[spawn failed: ${e.message}]`;
      this.finish();
    });
  }

  start(): void {
    this.child.stdout!.on('data', (chunk: string) => {
      this.pendingBytes += chunk.length;
      const lines = this.lines.push(chunk);
      if (lines.length) this.pendingBytes = 0;
      for (const l of lines) this.onmessage?.(l);
      if (this.pendingBytes > MAX_LINE) {
        this.onmessage?.(this.lines.flush()[0]?.slice(0, 1000) ?? '');
        this.pendingBytes = 0;
      }
    });
    this.child.stdout!.on('end', () => {
      for (const l of this.lines.flush()) this.onmessage?.(l);
      this.finish();
    });
    this.child.stderr!.on('data', (d: string) => {
      this.err = (this.err + d).slice(-MAX_STDERR);
    });
    this.child.on('exit', () => this.finish());
  }

  send(frame: string): void {
    this.writeRaw(`${frame}\n`);
  }

  writeRaw(chunk: string): void {
    if (!this.exited && this.child.stdin!.writable) this.child.stdin!.write(chunk);
  }

  stderr(): string {
    return this.err;
  }

  /** EOF on stdin (an implicit shutdown, §5.1); the process is killed if it has not exited after `graceMs`. */
  close(graceMs = 5000): void {
    this.child.stdin!.end();
    if (this.exited) return;
    const timer = setTimeout(() => {
      if (!this.exited) this.child.kill('SIGKILL');
    }, graceMs);
    timer.unref();
  }

  private finish(): void {
    if (this.exited) return;
    this.exited = true;
    this.onclose?.();
  }
}
