import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeSite } from '../test/bundle/site-fixture.ts';
import { packPackage } from './support/example-app.ts';

/**
 * The packed package installed into an empty app (issue 22, deliverable 4): a browser app gets
 * only the files it serves (≤ 40 MB, no native binaries, no install scripts); the CLI's Node-only
 * needs are optional peer dependencies it names when they are missing.
 */
let tmp: string;
let app: string;
let tarball: string;

test.describe.configure({ timeout: 240_000 });

test.beforeAll(() => {
  test.setTimeout(240_000);
  tmp = mkdtempSync(join(tmpdir(), 'rcp-lean-'));
  tarball = packPackage(tmp);
  app = join(tmp, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'empty-app', version: '1.0.0', private: true }));
});

test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Bytes and native addons under `dir`. */
function survey(dir: string): { bytes: number; native: string[] } {
  let bytes = 0;
  const native: string[] = [];
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = join(e.parentPath, e.name);
    bytes += statSync(file).size;
    if (e.name.endsWith('.node') || e.name.endsWith('.so') || /\.so\.\d/.test(e.name) || e.name.endsWith('.dylib') || e.name.endsWith('.dll')) native.push(file);
  }
  return { bytes, native };
}

test('an empty app installs the package: one package, ≤ 40 MB, no native binary, no install script', () => {
  const log = execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], { cwd: app, encoding: 'utf8' });
  expect(log).toMatch(/added 1 package/);
  const modules = join(app, 'node_modules');
  expect(readdirSync(modules).filter((n) => !n.startsWith('.'))).toEqual(['rcp-in-page']);
  const { bytes, native } = survey(modules);
  console.log(`node_modules of an empty app with rcp-in-page: ${(bytes / 1024 / 1024).toFixed(1)} MB`);
  expect(bytes).toBeLessThanOrEqual(40 * 1024 * 1024);
  expect(native).toEqual([]);
  const manifest = JSON.parse(readFileSync(join(modules, 'rcp-in-page', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  for (const hook of ['preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[hook]).toBeUndefined();
  // What a page serves: the engine, the element and the ONNX Runtime files.
  for (const f of ['lib/index.js', 'lib/worker.js', 'lib/search.js', 'lib/ort/ort-wasm-simd-threaded.asyncify.wasm']) expect(existsSync(join(modules, 'rcp-in-page', f))).toBe(true);
});

test('the CLI names the optional dependency it needs, and builds a bundle once it is installed', () => {
  const site = writeSite(2);
  try {
    const cli = join(app, 'node_modules', '.bin', 'rcp-in-page');
    const first = spawnSync(cli, ['index', site, '--out', join(app, 'bundle'), '--model', 'none'], { cwd: app, encoding: 'utf8' });
    expect(first.status).toBe(1);
    expect(first.stderr).toContain("needs the package 'linkedom': npm install --save-dev linkedom");
    // --prefer-offline: `npm ci` caches tarballs but not the registry documents a by-name install
    // reads, so on a fresh machine npm may have to ask the registry for them (as a user's would).
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', 'linkedom', '@xmldom/xmldom'], { cwd: app, encoding: 'utf8' });
    const second = spawnSync(cli, ['index', site, '--out', join(app, 'bundle'), '--model', 'none'], { cwd: app, encoding: 'utf8' });
    expect(second.stderr).toContain('wrote');
    expect(second.status).toBe(0);
    expect(existsSync(join(app, 'bundle', 'rcp-bundle.json'))).toBe(true);
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
});
