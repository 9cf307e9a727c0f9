/**
 * EntityDB for the bench on a fresh checkout. It is not a devDependency on purpose:
 * `@babycommando/entity-db` 1.0.11 depends on `@xenova/transformers` 2.x, whose own dependencies
 * (onnxruntime-node 1.14, sharp) download native binaries from hosts outside the registry in their
 * install scripts — a failing or slow step in every `npm install`, for a model the bench never uses
 * (bench/stubs/xenova-transformers.ts replaces it; `idb` is ours). So the bench fetches the pinned
 * tarball with the ordinary client (`npm pack`) on its first run, checks its sha256 and unpacks it
 * into .cache/bench-peers/node_modules (git-ignored), which bench/vite.config.ts resolves through
 * BENCH_PEERS. Nothing else is installed; a checkout that has the package in node_modules uses that.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Peer {
  name: string;
  version: string;
  /** sha256 of the registry tarball. */
  sha256: string;
}

const PEERS: Peer[] = [{ name: '@babycommando/entity-db', version: '1.0.11', sha256: 'af5aaf56dbed46663c94c95368e1848409ac16639b63c4d7470cbef0a4204f9f' }];

/**
 * The node_modules folder holding the peers missing from the project's own node_modules (fetched
 * now when absent), or undefined when none is missing. Throws when a fetch fails or a hash differs.
 */
export function ensurePeers(root: string, say: (line: string) => void): string | undefined {
  const dir = join(root, '.cache', 'bench-peers', 'node_modules');
  const missing = PEERS.filter((p) => !existsSync(join(root, 'node_modules', p.name)));
  if (missing.length === 0) return undefined;
  for (const p of missing) {
    const target = join(dir, p.name);
    const stamp = join(target, '.sha256');
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === p.sha256) continue;
    say(`fetching ${p.name}@${p.version} for the bench (npm pack, into ${dir})`);
    const tmp = mkdtempSync(join(tmpdir(), 'rcp-bench-peer-'));
    try {
      const r = spawnSync('npm', ['pack', `${p.name}@${p.version}`, '--pack-destination', tmp, '--silent'], { encoding: 'utf8' });
      const file = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
      if (r.status !== 0 || !file) throw new Error(`npm pack ${p.name}@${p.version} failed: ${r.stderr.trim()}`);
      const got = createHash('sha256').update(readFileSync(join(tmp, file))).digest('hex');
      if (got !== p.sha256) throw new Error(`${p.name}@${p.version}: sha256 ${got}, expected ${p.sha256}`);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      const x = spawnSync('tar', ['-xzf', join(tmp, file), '-C', target, '--strip-components=1'], { encoding: 'utf8' });
      if (x.status !== 0) throw new Error(`unpacking ${file} failed: ${x.stderr.trim()}`);
      writeFileSync(stamp, p.sha256);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return dir;
}
