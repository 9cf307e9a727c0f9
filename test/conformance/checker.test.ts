/**
 * The conformance checker (src/conformance) against our real engine over an in-memory session,
 * and against servers broken on purpose: each defect must fail the check that names it, and a
 * server that is down, silent or closes must end the run quickly with a reason.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.ts';
import { toJsonReport } from '../../src/conformance/report.ts';
import { StreamWire } from '../../src/conformance/stream-wire.ts';
import type { Report } from '../../src/conformance/types.ts';
import type { Transport } from '../../src/transport/transport.ts';
import { engineServer } from '../support/engine-session.ts';

const status = (r: Report, id: string) => r.checks.find((c) => c.id === id)?.status;
const detail = (r: Report, id: string) => r.checks.find((c) => c.id === id)?.detail ?? '';
const failing = (r: Report) => r.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.detail}`);

const run = (t: Transport, timeoutMs = 2000) => runConformance(new StreamWire({ transport: t, kind: 'port', label: 'test', quietMs: 60 }), { timeoutMs, startupMs: timeoutMs, unavailableRetryMs: 500 });

/**
 * A transport in front of a real session that rewrites what goes either way: `toServer` may drop
 * or change a client frame, `toClient` may change, add or drop server frames.
 */
function tampered(inner: Transport, o: { toServer?: (f: string) => string | undefined; toClient?: (f: string) => string[] }): Transport {
  const outer: Transport = {
    start: () => inner.start(),
    send: (f) => {
      const g = o.toServer ? o.toServer(f) : f;
      if (g !== undefined) inner.send(g);
    },
    close: () => inner.close(),
  };
  inner.onmessage = (f) => (o.toClient ? o.toClient(f) : [f]).forEach((g) => outer.onmessage?.(g));
  inner.onclose = () => outer.onclose?.();
  return outer;
}

describe('the checker on our engine (memory session)', () => {
  it('passes every check it can run, certifies L2 as declared, and leaves no probe document behind', async () => {
    const server = await engineServer();
    const report = await run(server.connect());
    expect(failing(report)).toEqual([]);
    expect(report.certifiedLevel).toBe('L2');
    expect(report.declaredLevel).toBe('L2');
    // The writes really ran (and were undone): upsert, idempotence and delete were checked, not skipped.
    for (const id of ['index-add-ids', 'index-add-upsert', 'index-add-idempotent', 'index-delete-idempotent', 'filter-type-mismatch', 'embed-encoding', 'rerank-scores', 'cancel-exactly-one-response', 'batch-invalid-member']) {
      expect(status(report, id), id).toBe('pass');
    }
    expect(server.engine.stats().documents).toBe(0);
    // Every failing check would carry the frames that decided it; passing ones do too.
    expect(report.checks.find((c) => c.id === 'id-echo')!.frames.some((f) => f.dir === 'in')).toBe(true);
  });

  it('--json has exactly the contract keys', async () => {
    const server = await engineServer();
    const json = toJsonReport(await run(server.connect()));
    expect(Object.keys(json)).toEqual(['certifiedLevel', 'checks']);
    for (const c of json.checks) {
      expect(Object.keys(c)).toEqual(['id', 'level', 'status', 'section', 'detail']);
      expect(['pass', 'fail', 'skip']).toContain(c.status);
      expect(c.section).toMatch(/^§\d+(\.\d+)*$/);
    }
    expect(new Set(json.checks.map((c) => c.id)).size).toBe(json.checks.length);
  });

  it('--no-write skips the write checks and touches nothing', async () => {
    const server = await engineServer();
    await server.engine.add([{ id: 'mine', text: 'a document of the user about quokkas' }]);
    const v = server.engine.stats().indexVersion;
    const report = await runConformance(new StreamWire({ transport: server.connect(), kind: 'port', label: 'test', quietMs: 60 }), { write: false });
    expect(status(report, 'index-add-upsert')).toBe('skip');
    expect(server.engine.stats().indexVersion).toBe(v);
    expect(failing(report)).toEqual([]);
  });
});

describe('servers broken on purpose fail the check that names the defect', () => {
  it('answering a notification', async () => {
    const server = await engineServer();
    const t = tampered(server.connect(), {});
    // Answer every notification the client sends with an empty result.
    const send = t.send.bind(t);
    t.send = (f) => {
      const m = JSON.parse(f);
      if (!Array.isArray(m) && !('id' in m)) queueMicrotask(() => t.onmessage?.(JSON.stringify({ jsonrpc: '2.0', id: null, result: {} })));
      send(f);
    };
    const r = await run(t);
    expect(status(r, 'notification-not-answered')).toBe('fail');
    expect(r.certifiedLevel).toBeNull();
  });

  it('echoing ids as strings, scores out of order, and a NaN', async () => {
    const server = await engineServer();
    const t = tampered(server.connect(), {
      toClient: (f) => {
        const m = JSON.parse(f);
        if (m.id === 42) return [f.replace('"id":42', '"id":"42"')];
        if (Array.isArray(m.result?.hits) && m.result.hits.length > 1) {
          m.result.hits.reverse();
          return [JSON.stringify(m)];
        }
        if (m.result?.nonce === 'alive') return [f.replace('"result":{', '"result":{"x":NaN,')];
        return [f];
      },
    });
    const r = await run(t);
    expect(status(r, 'id-echo')).toBe('fail');
    expect(detail(r, 'id-echo')).toContain('42');
    expect(status(r, 'retrieve-scores-descending')).toBe('fail');
    expect(status(r, 'jsonrpc-well-formed')).toBe('fail');
    expect(detail(r, 'jsonrpc-well-formed')).toContain('not JSON');
  });

  it('overclaiming: declaring L2 while advertising less than L1', async () => {
    const server = await engineServer();
    const t = tampered(server.connect(), {
      toClient: (f) => {
        const m = JSON.parse(f);
        if (m.result?.capabilities && m.result.protocolVersion) {
          delete m.result.capabilities.filter;
          return [JSON.stringify(m)];
        }
        return [f];
      },
    });
    const r = await run(t);
    expect(r.certifiedLevel).toBe('L0');
    expect(status(r, 'l1-surface')).toBe('skip');
    expect(status(r, 'declared-level-honest')).toBe('fail');
  });

  it('a server that never answers: the run ends in bounded time, the first check fails with the reason', async () => {
    const silent: Transport = { start() {}, send() {}, close() {} };
    const t0 = performance.now();
    const r = await run(silent, 300);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(status(r, 'info-before-initialize')).toBe('fail');
    expect(detail(r, 'info-before-initialize')).toContain('no answer within 300 ms');
    expect(r.checks.filter((c) => c.status === 'skip' && c.detail.startsWith('not run:')).length).toBeGreaterThan(50);
    expect(r.certifiedLevel).toBeNull();
  });

  it('a server that closes the connection at once', async () => {
    const closing: Transport = {
      start() {},
      send() {
        queueMicrotask(() => closing.onclose?.());
      },
      close() {},
    };
    const r = await run(closing);
    expect(status(r, 'info-before-initialize')).toBe('fail');
    expect(detail(r, 'info-before-initialize')).toContain('closed');
    expect(r.certifiedLevel).toBeNull();
  });

  it('a server that answers a request twice', async () => {
    const server = await engineServer();
    const t = tampered(server.connect(), {
      toClient: (f) => (JSON.parse(f).id === 'str-id-1' ? [f, f] : [f]),
    });
    const r = await run(t);
    expect(status(r, 'answered-once')).toBe('fail');
    expect(detail(r, 'answered-once')).toContain('"str-id-1"');
  });
});
