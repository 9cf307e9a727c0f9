import { resolve } from 'node:path';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { workerEntryNotImported } from './tools/vite/worker-chunks.ts';

const root = import.meta.dirname;
const BOOT = resolve(root, 'src/client/boot.ts');
/** Stands in for the worker's URL until the chunk is written (keeps Vite from bundling the worker into index.js). */
/** Name of the chunk that holds the third-party model runtime (scripts/lib-size.ts leaves it out). */
export const ML_RUNTIME_CHUNK = 'ml-runtime';
/** Name of the chunk that holds the language detector and its n-gram data (eld; left out likewise). */
export const LANGUAGE_DETECTOR_CHUNK = 'language-detector';
const PLACEHOLDER = '__RCP_IN_PAGE_WORKER_URL__';

/**
 * The package's `index.js` must start the worker as `new Worker(new URL('./worker.js', import.meta.url))`
 * — the pattern the consumer's bundler recognises, and a plain relative URL in a static folder.
 * Vite would otherwise rewrite it to its own asset path, so the URL is hidden from it and restored.
 */
function workerBesideIndex(): Plugin {
  return {
    name: 'rcp-worker-beside-index',
    enforce: 'pre',
    transform(code, id) {
      if (id !== BOOT) return null;
      const next = code.replaceAll("new URL('../worker-entry.ts', import.meta.url)", `new URL(${PLACEHOLDER}, import.meta.url)`);
      if (next === code) this.error('boot.ts no longer spawns ../worker-entry.ts; update vite.lib.config.ts');
      return next;
    },
    // After minification, so the URL stays a plain double-quoted string (webpack, too, wants that).
    generateBundle(_options, bundle) {
      for (const out of Object.values(bundle)) {
        // boot.ts may land in a chunk shared by index.js and search.js (chunks/…): the URL is relative to that file.
        const up = out.fileName.split('/').length - 1;
        const url = up === 0 ? './worker.js' : `${'../'.repeat(up)}worker.js`;
        if (out.type === 'chunk' && out.code.includes(PLACEHOLDER)) out.code = out.code.replaceAll(PLACEHOLDER, `"${url}"`);
      }
    },
  };
}

/**
 * `npm run build:lib` → `lib/`, in two builds: mode `page` writes `index.js` (client, federation;
 * ESM), `search.js` (the `<rcp-search>` element) and the chunks they share; mode `worker` writes
 * `worker.js` (src/worker-entry.ts, a few hundred bytes), which loads the engine as a chunk; the
 * modules that chunk shares with the chunks it loads later are small chunks of their own, fetched
 * with it. It keeps a second copy of the few modules the page shares with it (the RCP client's
 * transport and types). No chunk imports `worker.js` itself: WebKit would evaluate it twice
 * (src/worker-entry.ts). onnxruntime-web resolves to its build without an embedded wasm
 * (`onnxruntime-web-use-extern-wasm`): the runtime is fetched from `wasmPaths` at run time, so the
 * package carries no copy of it.
 */
export default defineConfig(({ mode }) => ({
  publicDir: false,
  base: './',
  plugins: [workerBesideIndex(), ...(mode === 'worker' ? [workerEntryNotImported()] : [])],
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  build: {
    outDir: resolve(root, 'lib'),
    // The page build runs first and empties the folder; the worker's build adds to it.
    emptyOutDir: mode !== 'worker',
    target: 'es2022',
    minify: true,
    modulePreload: false,
    copyPublicDir: false,
    rollupOptions: {
      input: mode === 'worker' ? { worker: resolve(root, 'src/worker-entry.ts') } : { index: resolve(root, 'src/lib/index.ts'), search: resolve(root, 'src/element/index.ts') },
      // The worker's entry exports nothing (its engine chunk holds the shared modules).
      preserveEntrySignatures: mode === 'worker' ? 'allow-extension' : 'strict',
      output: {
        format: 'es',
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
        // transformers.js + onnxruntime-web in a chunk of their own, so the library's own size can be told apart.
        // eld (language detection, 280 KB gzipped of n-gram data) likewise: loaded on the first add only.
        codeSplitting: {
          groups: [
            { name: ML_RUNTIME_CHUNK, test: /node_modules[\\/](@huggingface[\\/]transformers|onnxruntime-(web|common))[\\/]/ },
            { name: LANGUAGE_DETECTOR_CHUNK, test: /node_modules[\\/]eld[\\/]/ },
          ],
        },
      },
    },
  },
}));
