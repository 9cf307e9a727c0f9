/**
 * Vite plugin: builds src/sw/sw.ts to /sw.js (a stable URL, as a service worker needs) and injects
 * its precache list and build hash. The hash covers every precached file's name and, for the
 * unhashed public files (ORT, the configured model, sample corpus and vectors), its content, so any
 * change makes a new cache.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Plugin } from 'vite';
import { parseModelConfig, type ModelConfig } from '../../src/models/model-config.ts';
import { precomputedFileName } from '../../src/models/precomputed.ts';
import { ONNX_FILE } from '../../src/models/settings.ts';
import { WEIGHTS_FILE } from '../../src/models/encoder-runtime/weights-file.ts';

/** public/models/config.json as parsed JSON (the defaults when absent or unreadable). */
function readModelsConfig(publicDir: string): unknown {
  try {
    return JSON.parse(readFileSync(join(publicDir, 'models', 'config.json'), 'utf8'));
  } catch {
    return {};
  }
}

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
 * What of public/models and public/sample the worker needs offline with the configured model
 * (public/models/config.json): that model's folder with the ONNX file of its dtype (the other's
 * only when that one is missing, as the runtime falls back) and, for q8, the int8 weight file of our
 * own encoder runtime (it runs no fp32 weights; transformers.js runs the ONNX file on WebGPU or when
 * our kernels cannot run), its precomputed sample vectors, and
 * the small files of every other model (the picker reads their manifests). Other models' weights
 * and vectors are cached on first use.
 */
export function precachedPublicFiles(files: readonly string[], config: Pick<ModelConfig, 'embedder' | 'dtype'>): string[] {
  const all = new Set(files);
  const own = `/models/${config.embedder}/`;
  const wanted = `${own}${ONNX_FILE[config.dtype]}`;
  const fallback = `${own}${ONNX_FILE[config.dtype === 'q8' ? 'fp32' : 'q8']}`;
  const vectors = /^\/sample\/vectors-.*\.bin$/;
  return files
    .filter((f) => {
      if (f.endsWith('README.md') || f.endsWith('.tmp')) return false;
      if (vectors.test(f)) return f === `/sample/${precomputedFileName(config.embedder)}`;
      if (f.startsWith('/models/') && f.endsWith('.bin')) return config.dtype === 'q8' && f === `${own}${WEIGHTS_FILE.q8}`;
      if (!/\.onnx$/.test(f)) return true;
      if (!f.startsWith(own)) return false;
      return f === wanted || (f === fallback && !all.has(wanted));
    })
    .sort();
}

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
      const { config } = parseModelConfig(readModelsConfig(opts.publicDir));
      const pub = precachedPublicFiles(publicFiles, config);
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
