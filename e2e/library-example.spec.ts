import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { buildExampleApp, type BuiltExample } from './support/example-app.ts';

/** The example app's own preview server, beside the playground's (E2E_PORT). */
const PORT = Number(process.env.E2E_PORT ?? 4173) + 20;
const ORIGIN = `http://localhost:${PORT}`;
let example: BuiltExample;
let server: ChildProcess | undefined;

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  example = buildExampleApp();
  server = spawn(process.execPath, [join(example.dir, 'node_modules/vite/bin/vite.js'), 'preview', '--host', 'localhost', '--port', String(PORT), '--strictPort'], { cwd: example.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((ok, fail) => {
    const seen = (d: Buffer) => {
      out += d;
      if (out.replace(/\x1b\[[0-9;]*m/g, '').includes(`:${PORT}/`)) ok(); // Vite colours its banner
    };
    server!.stdout!.on('data', seen);
    server!.stderr!.on('data', (d: Buffer) => (out += d));
    server!.on('exit', (code) => fail(new Error(`vite preview exited ${code}: ${out}`)));
  });
});

test.afterAll(() => {
  server?.kill('SIGTERM');
  if (example) rmSync(dirname(example.dir), { recursive: true, force: true });
});

test('an outside Vite app installs the packed tarball, indexes three documents and searches, all on its own origin', async ({ page, context }) => {
  expect(example.installLog).toMatch(/added \d+ packages?/);
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(`${ORIGIN}/`);
  await expect(page.locator('#status')).toContainText('1 result for “whale” from rcp-in-page', { timeout: 60_000 });
  await expect(page.locator('#hits li')).toHaveCount(1);
  await expect(page.locator('#hits li').first()).toHaveAttribute('data-id', 'moby');

  await page.locator('#q').fill('woods pond');
  await page.locator('#search button').click();
  await expect(page.locator('#hits li').first()).toHaveAttribute('data-id', 'walden');
  await expect(page.locator('#status')).toContainText('for “woods pond”');

  expect(errors).toEqual([]);
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
  // The worker came from the package's own worker.js, bundled by the app's Vite build.
  expect(requests.some((u) => /\/assets\/worker-[\w-]+\.js$/.test(u))).toBe(true);
});

test('served from a plain static folder, with no bundler, the same files work', async ({ page, context }) => {
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  await page.goto(`${ORIGIN}/static/index.html`);
  await expect(page.locator('#status')).toHaveText('hits: a', { timeout: 60_000 });
  expect(requests.some((u) => u === `${ORIGIN}/static/rcp-in-page/worker.js`)).toBe(true);
  expect(requests.filter((u) => !u.startsWith(`${ORIGIN}/`))).toEqual([]);
});
