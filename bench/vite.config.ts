/**
 * The bench build (bench/run.ts): the app's config plus the bench page, and the peer vector
 * stores resolved from BENCH_PEERS (a node_modules folder, e.g. one made with
 * `npm install --prefix /tmp/peers edgevec@0.9.0 @babycommando/entity-db@1.0.11 --ignore-scripts`)
 * when they are not in the project's own node_modules.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vite';
import app from '../vite.config.ts';

const root = resolve(import.meta.dirname, '..');
const peers = process.env.BENCH_PEERS;
const alias: Record<string, string> = {
  // EntityDB's embedding model is never used: see the stub.
  '@xenova/transformers': resolve(import.meta.dirname, 'stubs/xenova-transformers.ts'),
};
for (const name of ['edgevec', '@babycommando/entity-db']) {
  if (existsSync(resolve(root, 'node_modules', name))) continue;
  // Not installed anywhere: a stub whose stage fails, so the rest of the bench still runs.
  alias[name] = peers && existsSync(resolve(peers, name)) ? resolve(peers, name) : resolve(import.meta.dirname, 'stubs/missing-peer.ts');
}

export default mergeConfig(
  app,
  defineConfig({
    resolve: { alias },
    build: { rollupOptions: { input: { bench: resolve(root, 'bench.html') } } },
  }),
  false,
);
