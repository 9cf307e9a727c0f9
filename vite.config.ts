import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { serviceWorker } from './scripts/vite-sw.ts';

const root = import.meta.dirname;

/** Same-origin-only policy for the app; 'wasm-unsafe-eval' lets onnxruntime-web compile its wasm. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
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

export default defineConfig({
  plugins: [serviceWorker({ entry: resolve(root, 'src/sw/sw.ts'), publicDir: resolve(root, 'public') })],
  build: {
    target: 'es2022',
    rollupOptions: {
      input: {
        main: resolve(root, 'index.html'),
        bridge: resolve(root, 'bridge.html'),
      },
    },
  },
  worker: { format: 'es' },
  server: { headers },
  preview: { headers },
});
