/**
 * The worker as an aggregator over the real bridges: two HTTP bridges, each with its own profile
 * (its own index), each federating the other (--federate), so a federated retrieve could recurse
 * forever. §16.2's hop budget and path stop it: the answer fuses both indexes' hits, each once,
 * and names the cycle; catalog/list on each lists the other; a plain retrieve stays local.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_ORIGIN } from '../bridges/profile-origin.ts';
import { startHttp } from '../tools/lib/bridge-process.ts';

const PORT_A = Number(process.env.E2E_PORT ?? 4173) + 40;
const PORT_B = PORT_A + 1;
const url = (port: number) => `http://127.0.0.1:${port}/rcp`;
const bridges: { stop(): Promise<void> }[] = [];
const profiles: string[] = [];

test.describe.configure({ timeout: 240_000 });

/** One JSON-RPC POST; tried again once when a kept-alive socket was reset under us (undici reusing one the bridge closed). */
async function post(port: number, method: string, params: object, id = 1): Promise<any> {
  const once = () => fetch(`${url(port)}/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) }).then((r) => r.json());
  try {
    return await once();
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw e;
    return once();
  }
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  for (const [port, other, name] of [[PORT_A, PORT_B, 'agg-a'], [PORT_B, PORT_A, 'agg-b']] as const) {
    const profile = mkdtempSync(join(tmpdir(), `rcp-${name}-`));
    profiles.push(profile);
    // Each admits the other's worker (its page origin) and federates it.
    bridges.push(await startHttp(port, ['--profile', profile, '--allow-origin', DEFAULT_ORIGIN, '--federate', url(other), '--identity', name]));
  }
  expect((await post(PORT_A, 'index/add', { documents: [{ id: 'a-whale', text: 'The white whale as seen from index A.' }] })).result.ids).toEqual(['a-whale']);
  expect((await post(PORT_B, 'index/add', { documents: [{ id: 'b-whale', text: 'The white whale as told by index B.' }] })).result.ids).toEqual(['b-whale']);
});

test.afterAll(async () => {
  await Promise.all(bridges.map((b) => b.stop()));
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
});

test('two aggregators pointing at each other: a federated retrieve fuses both and ends (§16.2)', async () => {
  const plain = await post(PORT_A, 'retrieve', { query: 'white whale' });
  expect(plain.result.hits.map((h: { id: string }) => h.id)).toEqual(['a-whale']);
  // Each worker connects its remote on first use (a cold worker on a loaded machine can miss the
  // 5 s federation deadline): wait until each aggregator's catalog lists the other.
  for (const port of [PORT_A, PORT_B]) {
    await expect.poll(async () => (await post(port, 'catalog/list', {})).result.engines.length, { timeout: 120_000 }).toBe(1);
  }
  const fused = await post(PORT_A, 'retrieve', { query: 'white whale', _meta: { federate: true } });
  expect(fused.error).toBeUndefined();
  // Both indexes' hits, each once: had the request recursed until the deadline, B's would be missing.
  expect(fused.result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['a-whale', 'b-whale']);
  expect(fused.result.usage.notes.join(' ')).toMatch(/cycle: 'agg-a' is already in the federation path/);
  const init = await post(PORT_A, 'initialize', { protocolVersion: 1 });
  expect(init.result.capabilities.catalog).toEqual({ engines: 1 });
  const catalog = await post(PORT_A, 'catalog/list', {});
  expect(catalog.result.engines).toEqual([expect.objectContaining({ id: `127.0.0.1:${PORT_B}`, endpoint: { transport: 'http', url: url(PORT_B) } })]);
});

test('a remote aggregator that is gone never breaks the local answer', async () => {
  await bridges.pop()!.stop();
  const r = await post(PORT_A, 'retrieve', { query: 'white whale', _meta: { federate: true } });
  expect(r.result.hits.map((h: { id: string }) => h.id)).toEqual(['a-whale']);
  expect(r.result._meta.degraded).toEqual([`127.0.0.1:${PORT_B}`]);
});
