/**
 * Builds `examples/vite-app` the way an outside project would: from the packed tarball, not the
 * source tree. Offline by construction: the package's declared dependencies are overridden with an
 * empty stub (its files bundle everything they run, which this also proves: the build would fail
 * on any import of them), and Vite and TypeScript are linked from this repository's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A page with no build step: one module script importing the package's files by relative URL. */
const STATIC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rcp-in-page from a static folder</title></head>
<body><p id="status">Starting…</p>
<script type="module">
  import { createInPageEngine } from './rcp-in-page/index.js';
  const engine = await createInPageEngine({ database: 'static-example', models: false });
  await engine.request('index/add', { documents: [{ id: 'a', text: 'Lighthouses guide ships at night.' }, { id: 'b', text: 'Bread rises in a warm kitchen.' }] });
  const { hits } = await engine.request('retrieve', { query: 'ships', k: 2 });
  document.getElementById('status').textContent = 'hits: ' + hits.map((h) => h.chunk?.docId ?? h.id).join(',');
</script></body></html>
`;

export interface BuiltExample {
  /** The temp project folder (package.json, node_modules, dist). */
  dir: string;
  tarball: string;
  /** What `npm install` printed. */
  installLog: string;
}

/** Builds lib/ and packs the package into `dir` (as `npm publish` would); returns the tarball's path. */
export function packPackage(dir: string): string {
  run(process.execPath, ['--import', 'tsx', 'scripts/build-lib.ts'], root);
  const packed = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], root).trim().split('\n').pop()!;
  return join(dir, packed);
}

export function buildExampleApp(): BuiltExample {
  const tmp = mkdtempSync(join(tmpdir(), 'rcp-example-'));
  const tarball = packPackage(tmp);

  const dir = join(tmp, 'app');
  cpSync(join(root, 'examples/vite-app'), dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
  mkdirSync(join(dir, 'stub'));
  writeFileSync(join(dir, 'stub/package.json'), JSON.stringify({ name: 'stub', version: '0.0.0' }));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const deps = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {});
  manifest.overrides = Object.fromEntries(deps.map((d) => [d, 'file:./stub']));
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));

  const installLog = run('npm', ['install', '--offline', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', tarball], dir);
  symlinkSync(join(root, 'node_modules/vite'), join(dir, 'node_modules/vite'), 'dir');
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
  run(process.execPath, [join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], dir);
  // The no-bundler way: the package's lib/ copied into a static folder, imported by a plain page.
  cpSync(join(dir, 'node_modules/rcp-in-page/lib'), join(dir, 'dist/static/rcp-in-page'), { recursive: true, filter: (src) => !src.includes(`${join('lib', 'types')}`) });
  writeFileSync(join(dir, 'dist/static/index.html'), STATIC_PAGE);
  return { dir, tarball, installLog };
}
