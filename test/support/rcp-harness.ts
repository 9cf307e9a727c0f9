import type { Backend } from '../../src/server/backend.ts';
import type { Deadlines } from '../../src/server/rcp-session.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import type { Capabilities, RetrieveResult } from '../../src/protocol/types.ts';
import { isObject } from '../../src/protocol/json.ts';
import { validateRetrieve } from '../../src/protocol/validate.ts';

/** Every frame any test session emitted, for a schema check over all of them. */
export const emittedFrames: string[] = [];

/** A raw peer over a linked in-memory pair: sends frames, collects every frame the server emits. */
export function connect(backend: Backend, deadlines?: Partial<Deadlines>) {
  const [clientEnd, serverEnd] = createLinkedPair();
  const session = serve(serverEnd, backend, deadlines);
  const received: string[] = [];
  const waiters: (() => void)[] = [];
  let closed = false;
  let onClosed = (): void => undefined;
  clientEnd.onmessage = (frame) => {
    received.push(frame);
    emittedFrames.push(frame);
    waiters.splice(0).forEach((w) => w());
  };
  clientEnd.onclose = () => {
    closed = true;
    onClosed();
  };
  clientEnd.start();

  const send = (frame: unknown) => clientEnd.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  /** Waits until a frame satisfies `pred` (parsed JSON) and returns it; woken by each frame, never by polling. */
  const waitFor = async (pred: (m: any) => boolean, timeoutMs = 2000): Promise<any> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = received.map((f) => JSON.parse(f)).find(pred);
      if (hit !== undefined) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame; got ${received.join('\n')}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((ok) => {
        waiters.push(ok);
        timer = setTimeout(ok, left); // the overall deadline only
      });
      clearTimeout(timer);
    }
  };
  const response = (id: unknown) => waitFor((m) => isObject(m) && m.id === id && !('method' in m));
  /** Sends a request and resolves with its response. */
  const call = async (id: unknown, method: string, params?: unknown) => {
    send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return response(id);
  };
  const init = (extra: Record<string, unknown> = {}) =>
    call('init', 'initialize', { protocolVersion: 1, client: { name: 't', version: '1' }, capabilities: {}, ...extra });
  let barriers = 0;
  /**
   * Resolves once the server has handled everything sent so far, and returns the frames that
   * arrived meanwhile (the barrier's own answer excluded): a `ping` round trip — the session
   * handles frames in order and answers a ping at once — then one macrotask, so work those frames
   * started on microtasks has run. An event to wait on, not a sleep.
   */
  const settle = async (): Promise<string[]> => {
    const before = received.length;
    const id = `barrier-${++barriers}`;
    send({ jsonrpc: '2.0', id, method: 'ping' });
    await response(id);
    await new Promise((ok) => setImmediate(ok));
    return received.slice(before).filter((f) => JSON.parse(f).id !== id);
  };
  /** Settles when the server closed the transport. */
  const closedNow = new Promise<void>((ok) => (onClosed = ok));
  return { send, call, init, response, waitFor, settle, closed: closedNow, received, session, isClosed: () => closed };
}

export const TEST_CAPS: Capabilities = {
  retrieve: { maxK: 50, modes: ['sparse'], defaultMode: 'sparse' },
  index: { writable: true },
  streaming: {},
  log: { levels: ['debug', 'info', 'notice', 'warning', 'error'] },
};

/** A tiny backend whose `retrieve` behaves per query: 'slow' waits for abort, 'boom' throws, 'nan' scores NaN. */
export function fakeBackend(caps: Capabilities = TEST_CAPS): Backend & { calls: string[]; nextCall(): Promise<string> } {
  const calls: string[] = [];
  const started: ((query: string) => void)[] = [];
  return {
    calls,
    /** Resolves with the query of the next retrieve that starts running. */
    nextCall: () => new Promise<string>((ok) => started.push(ok)),
    serverInfo: { name: 'fake', version: '0' },
    capabilities: () => caps,
    handlers: {
      async retrieve(raw, ctx): Promise<RetrieveResult> {
        const q = String(validateRetrieve(raw, ctx.caps).params.query);
        calls.push(q);
        started.splice(0).forEach((ok) => ok(q));
        if (q === 'slow') {
          ctx.progress({ progress: 0.5, stage: 'recall' });
          await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
        }
        if (q === 'boom') throw new Error('kaboom');
        if (q === 'log') ctx.log('info', 'hello', { n: 1 });
        if (q === 'debug') ctx.log('debug', 'quiet');
        return { hits: [{ id: 'a', score: q === 'nan' ? Number.NaN : q === 'inf' ? -Infinity : 1 }] };
      },
      async 'index/add'() {
        return { ids: [] };
      },
    },
  };
}
