/**
 * A `Wire` over any frame stream (`Transport`): the in-page MessagePort, or a stdio child process
 * (its Node transport lives in scripts/lib). Several exchanges may be open at once (pipelining
 * checks): each incoming response goes to the exchange waiting for its id; notifications go to
 * every open exchange (they are evidence for whichever check is looking); anything no exchange
 * claims is kept as a stray for the checks over the whole run.
 */
import type { Transport } from '../transport/transport.ts';
import { answers, responseId, tryParse, type Expect, type Reply, type SendOptions, type Wire } from './wire.ts';

interface Open {
  expect: Expect;
  frames: string[];
  started: number;
  finish(reply: Reply): void;
}

export interface StreamWireOptions {
  transport: Transport;
  kind: 'stdio' | 'port';
  label: string;
  /** How long a notification's exchange listens for an (illegal) answer. */
  quietMs?: number;
  writeRaw?(chunk: string): void;
  stderr?(): string;
}

export class StreamWire implements Wire {
  readonly transport: 'stdio' | 'port';
  readonly label: string;
  readonly writeRaw?: (chunk: string) => void;
  readonly stderr?: () => string;
  private readonly t: Transport;
  private readonly quietMs: number;
  private readonly open = new Set<Open>();
  private readonly stray: string[] = [];
  private closed = false;
  private readonly closeWaiters: (() => void)[] = [];

  constructor(o: StreamWireOptions) {
    this.t = o.transport;
    this.transport = o.kind;
    this.label = o.label;
    this.quietMs = o.quietMs ?? 300;
    this.writeRaw = o.writeRaw;
    this.stderr = o.stderr;
    this.t.onmessage = (frame) => this.receive(frame);
    this.t.onclose = () => {
      this.closed = true;
      for (const x of [...this.open]) x.finish({ frames: x.frames, fault: { kind: 'closed', message: 'the server closed the connection' }, ms: performance.now() - x.started });
      this.closeWaiters.splice(0).forEach((w) => w());
    };
    this.t.start();
  }

  send(text: string, options: SendOptions): Promise<Reply> {
    const reply = this.listen(options.expect, options.timeoutMs);
    if (!this.closed) this.t.send(text);
    return reply;
  }

  listen(expect: Expect, timeoutMs: number): Promise<Reply> {
    const options = { expect, timeoutMs };
    return new Promise<Reply>((resolve) => {
      const started = performance.now();
      if (this.closed) return resolve({ frames: [], fault: { kind: 'closed', message: 'the connection is closed' }, ms: 0 });
      let timer: ReturnType<typeof setTimeout>;
      const x: Open = {
        expect: options.expect,
        frames: [],
        started,
        finish: (reply) => {
          clearTimeout(timer);
          this.open.delete(x);
          resolve(reply);
        },
      };
      const wait = options.expect.kind === 'silence' ? Math.min(this.quietMs, options.timeoutMs) : options.timeoutMs;
      timer = setTimeout(() => {
        const ms = performance.now() - started;
        x.finish(options.expect.kind === 'silence' ? { frames: x.frames, ms } : { frames: x.frames, fault: { kind: 'timeout', message: `no answer within ${options.timeoutMs} ms` }, ms });
      }, wait);
      this.open.add(x);
    });
  }

  strays(): string[] {
    return [...this.stray];
  }

  closedWithin(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    return new Promise((ok) => {
      const timer = setTimeout(() => ok(false), ms);
      this.closeWaiters.push(() => (clearTimeout(timer), ok(true)));
    });
  }

  async close(): Promise<void> {
    this.t.close();
  }

  private receive(frame: string): void {
    const parsed = tryParse(frame);
    const value = parsed.ok ? parsed.value : undefined;
    const isNotification = typeof value === 'object' && value !== null && !Array.isArray(value) && 'method' in value;
    if (isNotification) {
      if (this.open.size === 0) this.stray.push(frame);
      for (const x of this.open) x.frames.push(frame);
      return;
    }
    const owner = this.ownerOf(value);
    if (!owner) {
      this.stray.push(frame);
      return;
    }
    owner.frames.push(frame);
    if (owner.expect.kind !== 'silence') owner.finish({ frames: owner.frames, ms: performance.now() - owner.started });
  }

  /** The open exchange a non-notification frame answers; a silent one takes what nobody else expects. */
  private ownerOf(value: unknown): Open | undefined {
    const id = responseId(value);
    const all = [...this.open];
    const byId = all.find((x) => x.expect.kind === 'response' && x.expect.id === id && id !== undefined) ?? all.find((x) => answers(x.expect, value));
    if (byId) return byId;
    if (Array.isArray(value) || (id === null && all.some((x) => x.expect.kind === 'batch'))) {
      const batch = all.find((x) => x.expect.kind === 'batch');
      if (batch) return batch;
    }
    return all.find((x) => x.expect.kind === 'silence') ?? (id === undefined ? all.find((x) => x.expect.kind === 'response') : undefined);
  }
}
