/**
 * What the runtime knows about a model folder before its weights load: which ONNX file it will run
 * (by dtype, falling back to whichever exists), its §15.7 identity and, when the folder says so,
 * its dimension. Works for folders built by `npm run models` (manifest.json) and for any
 * transformers.js-layout folder without one (e.g. a Hub model a user downloaded): then the
 * identity is `<folder>@sha256:<first 12 hex of the sha256 of the ONNX bytes>`, hashed here with
 * WebCrypto, and the dimension comes from config.json (`hidden_size`, `dim`, `d_model`) or, when
 * none is given, from a first inference.
 */
import { modelIdentity, type ModelManifest } from './manifest.ts';
import { resolveRecipe, type EncoderRecipe, type SentenceTransformersFiles } from './recipe.ts';
import { ONNX_FILE, type EmbedDtype } from './settings.ts';

export interface ModelFolder {
  /** Folder name under the model base (may contain one '/', e.g. `Xenova/all-MiniLM-L6-v2`). */
  name: string;
  /** The dtype transformers.js is asked for: the configured one, or the other when only that file exists. */
  dtype: EmbedDtype;
  /** Path of the ONNX file in use, relative to the folder. */
  onnxFile: string;
  identity: string;
  /** Known before loading (manifest or config.json); otherwise read from the first inference. */
  dimension?: number;
  /** Vectors the embedder returns are L2-normalised (it always normalises mean-pooled output). */
  normalized: boolean;
  manifest?: ModelManifest;
  /** The folder's config.json (transformers.js needs one anyway). */
  config: Record<string, unknown>;
  /** Pooling, query/document prefixes and input length the model was trained with. */
  recipe: EncoderRecipe;
  /** Notes for the log, e.g. a dtype fallback. */
  notes: string[];
}

/** A folder name is one or two plain path segments: never a URL, never `..`. */
export function isValidFolderName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)?$/.test(name) && !name.split('/').some((s) => s === '.' || s === '..');
}

/** The other dtype's file, for the fallback. */
const OTHER: Readonly<Record<EmbedDtype, EmbedDtype>> = { q8: 'fp32', fp32: 'q8' };

/**
 * Resolves `<base><name>/` (a URL path in the browser, a filesystem path in Node). Rejects when the
 * folder has neither a manifest nor an ONNX file transformers.js could load.
 */
export async function resolveModelFolder(base: string, name: string, dtype: EmbedDtype, node: boolean): Promise<ModelFolder> {
  if (!isValidFolderName(name)) throw new Error(`model folder name '${String(name)}' is not a plain folder name`);
  const io = folderReader(`${base}${name}/`, node);
  const manifestText = await io.text('manifest.json');
  const configText = await io.text('config.json');
  const config = configText !== undefined ? (JSON.parse(configText) as Record<string, unknown>) : {};
  const notes: string[] = [];
  const manifest = manifestText !== undefined ? (JSON.parse(manifestText) as ModelManifest) : undefined;
  // A manifest that names the pooling says all; otherwise the sentence-transformers files do.
  const recipe = resolveRecipe(manifest, manifest?.pooling !== undefined ? {} : await sentenceTransformersFiles(io));

  if (manifest !== undefined) {
    if (manifest.name !== name || !(manifest.dimension > 0) || typeof manifest.files !== 'object') {
      throw new Error(`${base}${name}/manifest.json: not a model manifest for '${name}'`);
    }
    let use = dtype;
    if (!manifest.files[ONNX_FILE[dtype]] && manifest.files[ONNX_FILE[OTHER[dtype]]]) {
      use = OTHER[dtype];
      notes.push(`${name}: no ${ONNX_FILE[dtype]}; using ${ONNX_FILE[use]} (${use})`);
    }
    const onnxFile = ONNX_FILE[use];
    return { name, dtype: use, onnxFile, identity: modelIdentity(manifest, onnxFile), dimension: manifest.dimension, normalized: true, manifest, config, recipe, notes };
  }

  if (configText === undefined) throw new Error(`${base}${name}/: no config.json (not a transformers.js model folder)`);
  for (const use of [dtype, OTHER[dtype]]) {
    const bytes = await io.bytes(ONNX_FILE[use]);
    if (!bytes) continue;
    if (use !== dtype) notes.push(`${name}: no ${ONNX_FILE[dtype]}; using ${ONNX_FILE[use]} (${use})`);
    const sum = await sha256Hex(bytes);
    if (!node) PREFETCHED.set(prefetchKey(`${base}${name}/${ONNX_FILE[use]}`), bytes);
    return { name, dtype: use, onnxFile: ONNX_FILE[use], identity: `${name}@sha256:${sum.slice(0, 12)}`, dimension: configDimension(config), normalized: true, config, recipe, notes };
  }
  throw new Error(`${base}${name}/: neither ${ONNX_FILE[dtype]} nor ${ONNX_FILE[OTHER[dtype]]} exists`);
}

/**
 * ONNX bytes already downloaded (to hash them) in the browser, by URL path: `prefetchingFetch`
 * answers transformers.js's requests for them from memory (its size probe and its download), so a
 * model without manifest crosses the network once. Dropped by `forgetPrefetched` after the load.
 */
const PREFETCHED = new Map<string, Uint8Array>();

function prefetchKey(url: string | URL): string {
  const s = String(url);
  const path = /^[a-z]+:/i.test(s) ? new URL(s).pathname : s;
  return path.replace(/\/{2,}/g, '/');
}

/** A `fetch` for transformers.js's `env.fetch`: prefetched ONNX bytes from memory, anything else from the network. */
export function prefetchingFetch(next: typeof fetch): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const bytes = PREFETCHED.size ? PREFETCHED.get(prefetchKey(input)) : undefined;
    if (!bytes) return next(input, init);
    const headers = { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength) };
    return Promise.resolve(new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers }));
  };
}

/** Releases the prefetched bytes of a resolved folder (call once its model has loaded or failed). */
export function forgetPrefetched(base: string, folder: ModelFolder): void {
  PREFETCHED.delete(prefetchKey(`${base}${folder.name}/${folder.onnxFile}`));
}

/** The sentence-transformers files of a folder, those that exist. */
async function sentenceTransformersFiles(io: FolderReader): Promise<SentenceTransformersFiles> {
  const json = async (path: string) => {
    const text = await io.text(path);
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
  };
  const [pooling, st, bert] = await Promise.all([json('1_Pooling/config.json'), json('config_sentence_transformers.json'), json('sentence_bert_config.json')]);
  return { pooling, st, bert };
}

/** The encoder's output width as config.json states it, if it does. */
export function configDimension(config: Record<string, unknown>): number | undefined {
  for (const key of ['hidden_size', 'dim', 'd_model', 'embedding_size']) {
    const v = config[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

/** Hex sha256 with WebCrypto (browser, worker and Node ≥ 20 alike). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

interface FolderReader {
  /** The file's text, or undefined when it does not exist. */
  text(path: string): Promise<string | undefined>;
  bytes(path: string): Promise<Uint8Array | undefined>;
}

function folderReader(folder: string, node: boolean): FolderReader {
  if (node) {
    const load = async () => {
      const fsName = 'node:fs/promises'; // a variable keeps bundlers from resolving it for the browser
      return (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises');
    };
    const read = async <T>(path: string, f: (fs: typeof import('node:fs/promises'), p: string) => Promise<T>): Promise<T | undefined> => {
      try {
        return await f(await load(), `${folder}${path}`);
      } catch (e) {
        if ((e as { code?: string }).code === 'ENOENT') return undefined;
        throw e;
      }
    };
    return {
      text: (p) => read(p, (fs, path) => fs.readFile(path, 'utf8')),
      bytes: (p) => read(p, async (fs, path) => new Uint8Array(await fs.readFile(path))),
    };
  }
  // Revalidated fetches: a rebuilt or replaced model is noticed, and the browser's HTTP cache
  // answers the second download of the ONNX file (by transformers.js) with a 304.
  const get = async (path: string): Promise<Response | undefined> => {
    const res = await fetch(`${folder}${path}`, { cache: 'no-cache' });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`${folder}${path}: HTTP ${res.status}`);
    // A dev/preview server may answer unknown paths with index.html (SPA fallback).
    if (/text\/html/i.test(res.headers.get('content-type') ?? '')) return undefined;
    return res;
  };
  return {
    text: async (p) => (await get(p))?.text(),
    bytes: async (p) => {
      const res = await get(p);
      return res ? new Uint8Array(await res.arrayBuffer()) : undefined;
    },
  };
}
