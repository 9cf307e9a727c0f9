/**
 * `npm run build:lib`: the npm package's files in `lib/` (see vite.lib.config.ts): the JavaScript
 * through Vite, the type declarations through `tsc` (tsconfig.lib.json), then the gzipped size.
 * tsc keeps the source's `.ts` import specifiers in the declarations; they are rewritten to `.js`,
 * the form every consumer's TypeScript resolves to the `.d.ts` beside it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'vite';
import { printLibSize } from './lib-size.ts';
import { ORT_WASM_FILES } from '../src/models/settings.ts';

const root = resolve(import.meta.dirname, '..');
const lib = join(root, 'lib');

// The page's entries, then the worker on its own (vite.lib.config.ts says why).
await build({ configFile: join(root, 'vite.lib.config.ts'), mode: 'page', logLevel: 'warn' });
await build({ configFile: join(root, 'vite.lib.config.ts'), mode: 'worker', logLevel: 'warn' });
await buildCli();
copyOrt();
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.lib.json')], { stdio: 'inherit' });

const RELATIVE_TS = /((?:from\s+|import\()\s*['"]\.{1,2}\/[^'"]*)\.ts(['"])/g;
for (const entry of readdirSync(join(lib, 'types'), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(RELATIVE_TS, '$1.js$2');
  if (fixed !== text) writeFileSync(file, fixed);
}
printLibSize(lib);

/**
 * `lib/cli/rcp-in-page.js`, the package's `bin`: the CLI for Node with the engine bundled in, and
 * its Node-only needs (the model runtime, HTML/XML and PDF parsers) left as imports of the optional
 * peer dependencies it asks for when missing (cli/node-deps.ts).
 */
async function buildCli(): Promise<void> {
  const peers = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies);
  await build({
    configFile: false,
    publicDir: false,
    logLevel: 'warn',
    ssr: { noExternal: true, target: 'node' },
    build: {
      ssr: join(root, 'cli/rcp-in-page.ts'),
      outDir: join(lib, 'cli'),
      emptyOutDir: true,
      target: 'node20',
      minify: false,
      copyPublicDir: false,
      rollupOptions: {
        external: (id) => id.startsWith('node:') || peers.some((p) => id === p || id.startsWith(`${p}/`)),
        output: { format: 'es', entryFileNames: 'rcp-in-page.js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
}

/**
 * onnxruntime-web's runtime files (the .mjs factory and its .wasm) in `lib/ort/`: an app serves
 * that folder as its `wasmPaths` (one copy step), without onnxruntime-web in its node_modules.
 */
function copyOrt(): void {
  const require = createRequire(join(root, 'node_modules', '@huggingface', 'transformers', 'package.json'));
  const dist = dirname(require.resolve('onnxruntime-web/webgpu'));
  mkdirSync(join(lib, 'ort'), { recursive: true });
  for (const file of ORT_WASM_FILES) copyFileSync(join(dist, file), join(lib, 'ort', file));
}
