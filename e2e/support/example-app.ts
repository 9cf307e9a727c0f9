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

export interface BuiltExample {
  /** The temp project folder (package.json, node_modules, dist). */
  dir: string;
  tarball: string;
  /** What `npm install` printed. */
  installLog: string;
}

export function buildExampleApp(): BuiltExample {
  const tmp = mkdtempSync(join(tmpdir(), 'rcp-example-'));
  run(process.execPath, ['--import', 'tsx', 'scripts/build-lib.ts'], root);
  const packed = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], root).trim().split('\n').pop()!;
  const tarball = join(tmp, packed);

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
  return { dir, tarball, installLog };
}
