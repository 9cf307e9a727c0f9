import { expect, test } from '@playwright/test';

/**
 * The foundation in real Chromium: the page boots the worker, opens its own RCP session over a
 * MessagePort, and drives it with the page-side RcpClient.
 */
test.describe('RCP server in the worker, driven from the page', () => {
  test('initialize, ping, add, retrieve and cancel from the page', async ({ page }) => {
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(`http://localhost:${process.env.E2E_PORT ?? 4173}/`) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) external.push(r.url());
    });
    await page.goto('/bridge.html');
    const result = await page.evaluate(async () => {
      // The built bridge page exposes raw session ports; drive one with hand-written frames.
      const w = window as unknown as { rcpBridge: { open(): Promise<number>; send(s: number, f: string): void } };
      const frames: string[] = [];
      const wake = new Set<() => void>();
      (window as unknown as { __rcpFrame: (s: number, f: string) => void }).__rcpFrame = (_s, f) => {
        frames.push(f);
        for (const w of [...wake]) w();
      };
      const sid = await w.rcpBridge.open();
      const send = (o: unknown) => w.rcpBridge.send(sid, JSON.stringify(o));
      /** The first frame satisfying `pred`, as soon as it arrives (woken by each frame, no polling). */
      const frameWhere = (pred: (m: any) => boolean): Promise<any> =>
        new Promise((ok) => {
          const check = () => {
            const hit = frames.map((f) => JSON.parse(f)).find(pred);
            if (hit === undefined) return;
            wake.delete(check);
            ok(hit);
          };
          wake.add(check);
          check();
        });
      const waitFor = (id: unknown) => frameWhere((m) => m.id === id && !('method' in m));
      send({ jsonrpc: '2.0', id: 'p0', method: 'ping', params: { nonce: 'before' } });
      const ping = await waitFor('p0');
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, client: { name: 'e2e', version: '1' } } });
      const init = await waitFor(1);
      send({
        jsonrpc: '2.0', id: 2, method: 'index/add',
        params: { documents: [
          { id: 'whale', text: 'The white whale swam beneath the Pequod.', meta: { title: 'Moby' } },
          { id: 'union', text: 'The state of the union is strong, said the president.', meta: { title: 'SOTU' } },
        ] },
      });
      const add = await waitFor(2);
      send({ jsonrpc: '2.0', id: 3, method: 'retrieve', params: { query: 'whale', k: 5, mode: 'sparse', includeText: true } });
      const hits = await waitFor(3);
      // A slow request: a large write, cancelled before it commits.
      const big = Array.from({ length: 3000 }, (_, i) => ({ id: `bulk-${i}`, text: `bulk document number ${i} `.repeat(40) }));
      send({ jsonrpc: '2.0', id: 4, method: 'index/add', params: { documents: big, _meta: { progressToken: 'bulk' } } });
      await frameWhere((m) => m.method === 'notifications/progress' && m.params.progressToken === 'bulk'); // the write is under way
      send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 4, reason: 'e2e' } });
      const cancelled = await waitFor(4);
      send({ jsonrpc: '2.0', id: 5, method: 'retrieve', params: { query: 'bulk document', k: 3 } });
      const afterCancel = await waitFor(5);
      return { ping, init, add, hits, cancelled, afterCancel, answers4: frames.filter((f) => JSON.parse(f).id === 4).length };
    });
    expect(result.ping.result).toEqual({ nonce: 'before' });
    expect(result.init.result.protocolVersion).toBe(1);
    expect(result.init.result.capabilities.retrieve.modes).toContain('sparse');
    expect(result.add.result.ids).toEqual(['whale', 'union']);
    expect(result.hits.result.hits[0].id).toContain('whale');
    expect(result.hits.result.hits[0].text).toContain('white whale');
    expect(result.answers4).toBe(1);
    expect(result.cancelled.error.code).toBe(-32006);
    expect(result.afterCancel.result.hits).toEqual([]); // all or nothing: nothing of the cancelled batch
    expect(external).toEqual([]);
  });

  test('the playground page drives its own session through RcpClient', async ({ page }) => {
    await page.goto('/index.html');
    await expect(page.locator('#status')).toContainText('Connected');
    const out = await page.evaluate(async () => {
      type Client = { request(m: string, p: unknown, o?: unknown): Promise<any>; capabilities: any };
      const c = (window as unknown as { rcpClient: Client }).rcpClient;
      const ping = await c.request('ping', { nonce: 3 });
      // A word the sample corpus (seeding in the background) cannot contain, so only 'pg' can match.
      await c.request('index/add', { documents: [{ id: 'pg', text: 'Playground document about zyxquorbels.' }] });
      const r = await c.request('retrieve', { query: 'zyxquorbels', k: 1, mode: 'sparse' });
      const gated = await c.request('memory/build', { scope: 'x' }).catch((e: { code: number }) => e.code);
      const ctrl = new AbortController();
      const pending = c.request('retrieve', { query: 'zyxquorbels', k: 1 }, { signal: ctrl.signal });
      ctrl.abort();
      const aborted = await pending.then(() => 'resolved', (e: { code: number }) => e.code);
      return { ping, top: r.hits[0]?.id, gated, aborted };
    });
    expect(out.ping).toEqual({ nonce: 3 });
    expect(out.top).toContain('pg');
    expect(out.gated).toBe(-32003); // failed client-side before sending
    expect(out.aborted).toBe(-32006);
    await expect(page.locator('#frames li').first()).toContainText('initialize');
  });
});
