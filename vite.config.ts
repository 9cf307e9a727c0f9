import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { evalSets } from './tools/vite/eval-sets.ts';
import { rcpReference } from './tools/vite/rcp-reference.ts';
import { serviceWorker } from './tools/vite/sw.ts';
import { workerEntryNotImported } from './tools/vite/worker-chunks.ts';

const root = import.meta.dirname;

/**
 * Remote RCP engines the Engines panel may reach (§16 federation): loopback only by default, so a
 * server on this machine (e.g. `npm run rcp:http`) works and nothing else can be contacted. A
 * deployment that federates with other hosts lists their origins in RCP_REMOTE_ENGINES
 * (space-separated) at build time. The page contacts them only at an address the user typed.
 */
const REMOTE_ENGINES = ['http://localhost:*', 'http://127.0.0.1:*', ...(process.env.RCP_REMOTE_ENGINES ?? '').split(/\s+/).filter(Boolean)];

/** Same-origin policy for the app (plus remote engines, above); 'wasm-unsafe-eval' lets onnxruntime-web compile its wasm. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  `connect-src 'self' ${REMOTE_ENGINES.join(' ')}`,
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const headers = {
  'Content-Security-Policy': CSP,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** index.html's own CSP meta (for static hosting) gets the same remote-engine origins as the header. */
const remoteEnginesInMetaCsp: Plugin = {
  name: 'rcp-remote-engines-csp',
  transformIndexHtml: (html) => html.replace("connect-src 'self';", `connect-src 'self' ${REMOTE_ENGINES.join(' ')};`),
};

export default defineConfig({
  plugins: [rcpReference({ root, publicDir: resolve(root, 'public') }), evalSets({ root, publicDir: resolve(root, 'public') }), remoteEnginesInMetaCsp, serviceWorker({ entry: resolve(root, 'src/sw/sw.ts'), publicDir: resolve(root, 'public') })],
  build: {
    target: 'es2022',
    rollupOptions: {
      input: {
        main: resolve(root, 'index.html'),
        bridge: resolve(root, 'bridge.html'),
      },
    },
  },
  // No chunk of a worker imports its entry file (src/worker-entry.ts says why).
  worker: { format: 'es', plugins: () => [workerEntryNotImported()] },
  server: { headers },
  preview: { headers },
});
