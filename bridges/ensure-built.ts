import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Builds the app once if dist/ is missing, with the build's output on stderr (stdout stays clean). */
export async function ensureBuilt(log: (line: string) => void): Promise<void> {
  if (existsSync(join(root, 'dist', 'bridge.html'))) return;
  log('no dist/: building the app once (npm run build)…');
  const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error('vite build failed');
}
