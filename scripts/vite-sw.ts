/**
 * Vite plugin: builds src/sw/sw.ts to /sw.js (a stable URL, as a service worker needs) and injects
 * its precache list and build hash. The hash covers every precached file's name and, for the
 * unhashed public files (ORT, models, sample corpus), its content, so any change makes a new cache.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Plugin } from 'vite';

/** Public folders precached whole (served from the app's own origin). */
const PUBLIC_DIRS = ['ort', 'models', 'sample', 'rcp'];
/** Built files never precached: other pages, source maps, and the bundled wasm copy (the runtime loads /ort/). */
const SKIP = /(^|\/)(bench|bridge)[^/]*$|\.map$|\.wasm$|^sw\.js$/;

function walk(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = join(dir, name);
    out = statSync(p).isDirectory() ? out.concat(walk(p)) : out.concat(p);
  }
  return out;
}

/**
 * The full-precision twin of a quantized model (onnx/model.onnx next to onnx/model_quantized.onnx)
 * is skipped: the app loads the quantized one; the other is cached on first use if ever fetched.
 */
const unusedTwin = (file: string, all: Set<string>) => /\/onnx\/model\.onnx$/.test(file) && all.has(file.replace(/model\.onnx$/, 'model_quantized.onnx'));

export function serviceWorker(opts: { entry: string; publicDir: string }): Plugin {
  return {
    name: 'rcp-service-worker',
    apply: 'build',
    config() {
      return {
        build: {
          rollupOptions: {
            input: { sw: opts.entry },
            output: { entryFileNames: (chunk: { name: string }) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
          },
        },
      };
    },
    generateBundle(_options, bundle) {
      const built = Object.keys(bundle).filter((f) => !SKIP.test(f));
      const publicFiles = PUBLIC_DIRS.flatMap((d) => walk(join(opts.publicDir, d))).map((p) => `/${relative(opts.publicDir, p).split('\\').join('/')}`);
      const all = new Set(publicFiles);
      const pub = publicFiles.filter((f) => !unusedTwin(f, all) && !f.endsWith('README.md')).sort();
      const precache = ['/', ...built.filter((f) => f !== 'index.html').map((f) => `/${f}`), '/index.html', ...pub];
      const hash = createHash('sha256');
      for (const f of precache) hash.update(f).update('\0');
      for (const f of pub) hash.update(readFileSync(join(opts.publicDir, f)));
      const version = hash.digest('hex').slice(0, 12);
      const sw = bundle['sw.js'];
      if (!sw || sw.type !== 'chunk') throw new Error('service worker chunk sw.js missing');
      sw.code = sw.code.replace(/__PRECACHE__/g, JSON.stringify(precache)).replace(/__BUILD_HASH__/g, JSON.stringify(version));
    },
  };
}
