/**
 * §16 federation in the playground: the page's own engine, a second instance of our HTTP bridge
 * (its own profile, so its own index) as a remote engine, and three bad engines — one answering
 * malformed frames, one that never answers, one that is down. The fused results carry hits from
 * both good engines with their origin shown; each bad engine is named with the reason it failed;
 * the local results survive all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openPlayground, ORIGIN, search, showArea, skipSample } from './support/playground.ts';

const root = join(import.meta.dirname, '..');
const REMOTE_PORT = Number(process.env.E2E_PORT ?? 4173) + 30;
const REMOTE = `http://127.0.0.1:${REMOTE_PORT}/rcp`;
let bridge: ChildProcess | undefined;
let profile: string;
const fakes: Server[] = [];
/** Responses the slow engine holds until the test ends. */
const held: ServerResponse[] = [];

test.describe.configure({ timeout: 240_000 });

/** A loopback RCP-over-HTTP engine that initializes properly and answers `retrieve` with `answer`. */
async function fakeEngine(answer: (id: unknown, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    const cors = { 'Access-Control-Allow-Origin': ORIGIN, 'Access-Control-Allow-Headers': 'Content-Type, Accept, RCP-Session', 'Access-Control-Allow-Methods': 'POST, OPTIONS' };
    for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const msg = JSON.parse(body);
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, server: { name: 'fake', version: '0' }, capabilities: { retrieve: { maxK: 50 } } } }));
      }
      if (msg.id === undefined) return void res.writeHead(204).end();
      answer(msg.id, res);
    });
  });
  fakes.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/rcp`;
}

/** The URL of a loopback port that was free a moment ago and is closed now. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise((ok) => server.close(ok));
  return `http://127.0.0.1:${port}/rcp`;
}

const post = (method: string, body: object) =>
  fetch(`${REMOTE}/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'RCP-Session': 'seed' }, body: JSON.stringify({ jsonrpc: '2.0', ...body, method }) }).then((r) => r.json());

test.beforeAll(async () => {
  test.setTimeout(240_000);
  profile = mkdtempSync(join(tmpdir(), 'rcp-remote-profile-'));
  // --allow-origin: the hardened bridge admits only browser origins it was told about.
  bridge = spawn(process.execPath, ['--import', 'tsx', 'bridges/rcp-http.ts', '--port', String(REMOTE_PORT), '--profile', profile, '--allow-origin', ORIGIN], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  await new Promise<void>((ok, fail) => {
    bridge!.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      if (stderr.includes('RCP over HTTP at')) ok();
    });
    bridge!.on('exit', () => fail(new Error(`remote bridge exited: ${stderr}`)));
  });
  expect((await post('initialize', { id: 1, params: { protocolVersion: 1 } })).result.protocolVersion).toBe(1);
  const added = await post('index/add', {
    id: 2,
    params: { documents: [{ id: 'remote-harpoon', text: 'The remote archive holds a harpoon manual for whalers.', meta: { title: 'Remote harpoon manual' } }] },
  });
  expect(added.result.ids).toEqual(['remote-harpoon']);
  // Warm: the remote's model loaded and its document embedded, so the panel's 4 s deadline measures
  // a query, not a cold model load on a busy machine.
  await expect
    .poll(async () => (await post('retrieve', { id: 3, params: { query: 'harpoon manual', k: 1, mode: 'dense' } })).result?.hits?.[0]?.id, { timeout: 180_000, intervals: [1_000] })
    .toBe('remote-harpoon');
});

test.afterAll(async () => {
  for (const r of held) r.destroy();
  for (const s of fakes) s.close();
  bridge?.kill('SIGTERM');
  if (bridge && bridge.exitCode === null) await new Promise((ok) => bridge!.once('exit', ok));
  rmSync(profile, { recursive: true, force: true });
});

test('the Engines panel fuses the page with a remote RCP engine and shows which engines failed and why', async ({ page, context }) => {
  const malformed = await fakeEngine((_id, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","result":'));
  const slow = await fakeEngine((_id, res) => void held.push(res));
  const down = await closedPort(); // nothing listens there
  const allowed = [ORIGIN, ...[REMOTE, malformed, slow, down].map((u) => new URL(u).origin)];
  const elsewhere: string[] = [];
  context.on('request', (r) => {
    if (!allowed.some((o) => r.url().startsWith(`${o}/`)) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
  });

  await skipSample(page);
  await openPlayground(page);
  await page.evaluate(() =>
    (window as unknown as { rcpClient: { request(m: string, p: unknown): Promise<unknown> } }).rcpClient.request('index/add', {
      documents: [{ id: 'local-harpoon', text: 'A harpoon kept in this browser, beside the try-works.', meta: { title: 'Local harpoon notes' } }],
    }),
  );

  // Nothing but the page's own origin until an engine is added.
  await search(page, 'harpoon');
  await expect(page.locator('#hits li')).toHaveCount(1);
  expect(elsewhere).toEqual([]);

  await showArea(page, 'engines');
  for (const url of [REMOTE, malformed, slow, down]) {
    await page.locator('#engine-url').fill(url);
    await page.locator('#engine-form button').click();
  }
  await expect(page.locator('#engine-list li')).toHaveCount(5);

  const engine = (url: string) => page.locator(`#engine-list li[data-engine="${new URL(url).host}"]`);
  // A first federated search connects each engine (initialize over HTTP within the panel's 4 s);
  // on a busy machine the remote's first answer may miss it, which the panel says as a timeout.
  // Search until the remote has answered once, so the search below measures fusion, not a cold start.
  await expect(async () => {
    await search(page, `harpoon ${Math.random().toString(36).slice(2, 6)}`);
    await expect(engine(REMOTE)).toHaveAttribute('data-state', 'ok', { timeout: 6_000 });
  }).toPass({ timeout: 90_000 });

  await search(page, 'harpoon manual');
  await expect(engine(REMOTE)).toHaveAttribute('data-state', 'ok');
  const hits = page.locator('#hits li');
  await expect(hits).toHaveCount(2, { timeout: 30_000 });
  await expect(page.locator('#hits li[data-doc-id="remote-harpoon"] .hit-pos')).toContainText(`from 127.0.0.1:${REMOTE_PORT}`);
  await expect(page.locator('#hits li[data-doc-id="local-harpoon"] .hit-pos')).toContainText('from this page');

  await expect(page.locator('#engine-list li[data-engine="this page"]')).toHaveAttribute('data-state', 'ok');
  await expect(engine(REMOTE)).toHaveAttribute('data-state', 'ok');
  await expect(engine(malformed)).toHaveAttribute('data-state', 'failed');
  await expect(engine(malformed)).toContainText('malformed answer');
  await expect(engine(slow)).toHaveAttribute('data-state', 'timeout');
  await expect(engine(slow)).toContainText('timed out');
  await expect(engine(down)).toHaveAttribute('data-state', 'failed');
  await expect(engine(down)).toContainText('unreachable');
  // Each engine's state (engine-state.ts) and its share of the answer's two hits.
  const self = page.locator('#engine-list li[data-engine="this page"]');
  await expect(self).toHaveAttribute('data-health', 'ok');
  await expect(engine(REMOTE)).toHaveAttribute('data-health', 'ok');
  await expect(engine(slow)).toHaveAttribute('data-health', 'degraded');
  await expect(engine(malformed)).toHaveAttribute('data-health', 'unreachable');
  await expect(engine(down)).toHaveAttribute('data-health', 'unreachable');
  await expect(self.locator('.engine-share')).toHaveText("1 of the answer's hits (50%)");
  await expect(engine(REMOTE).locator('.engine-share')).toHaveText("1 of the answer's hits (50%)");
  await expect(engine(down).locator('.engine-share')).toHaveText("0 of the answer's hits (0%)");
  await expect(engine(down).locator('.engine-health')).toContainText('unreachable: engine unreachable');
  expect(elsewhere).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('federation.png'), fullPage: true });

  // Removing the remotes returns the page to its own engine alone.
  await showArea(page, 'engines');
  for (const url of [REMOTE, malformed, slow, down]) await engine(url).getByRole('button', { name: /Remove/ }).click();
  await expect(page.locator('#engine-list li')).toHaveCount(1);
  await search(page, 'harpoon');
  await expect(hits).toHaveCount(1);
});
