import type { Backend } from '../../src/server/backend.ts';
import type { Deadlines } from '../../src/server/deadlines.ts';
import { serve } from '../../src/server/serve.ts';
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
  clientEnd.onmessage = (frame) => {
    received.push(frame);
    emittedFrames.push(frame);
    waiters.splice(0).forEach((w) => w());
  };
  clientEnd.onclose = () => {
    closed = true;
  };
  clientEnd.start();

  const send = (frame: unknown) => clientEnd.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  /** Waits until a frame satisfies `pred` (parsed JSON) and returns it. */
  const waitFor = async (pred: (m: any) => boolean, timeoutMs = 2000): Promise<any> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = received.map((f) => JSON.parse(f)).find(pred);
      if (hit !== undefined) return hit;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${received.join('\n')}`);
      await new Promise<void>((ok) => {
        waiters.push(ok);
        setTimeout(ok, 20);
      });
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
  /** Resolves after `ms` of silence; returns frames that arrived meanwhile. */
  const quiet = async (ms = 60) => {
    const before = received.length;
    await new Promise((ok) => setTimeout(ok, ms));
    return received.slice(before);
  };
  return { send, call, init, response, waitFor, quiet, received, session, isClosed: () => closed };
}

export const TEST_CAPS: Capabilities = {
  retrieve: { maxK: 50, modes: ['sparse'], defaultMode: 'sparse' },
  index: { writable: true },
  streaming: {},
  log: { levels: ['debug', 'info', 'notice', 'warning', 'error'] },
};

/** A tiny backend whose `retrieve` behaves per query: 'slow' waits for abort, 'boom' throws, 'nan' scores NaN. */
export function fakeBackend(caps: Capabilities = TEST_CAPS): Backend & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    serverInfo: { name: 'fake', version: '0' },
    capabilities: () => caps,
    handlers: {
      async retrieve(raw, ctx): Promise<RetrieveResult> {
        const q = String(validateRetrieve(raw, ctx.caps).params.query);
        calls.push(q);
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
