/**
 * The model settings file the worker reads at start: `<modelBase>config.json`, i.e.
 * public/models/config.json served as `/models/config.json` (written with defaults by
 * `npm run models` when absent, never committed). It names which folders to run:
 *
 *   { "embedder": "minilm-l6-v2", "dtype": "q8", "device": "auto", "crossEncoder": "ms-marco-MiniLM-L-6-v2", "sparseEncoder": "splade-tiny" }
 *
 * Missing file → defaults. Unknown or invalid fields are reported as warnings and replaced by
 * their defaults, so a typo never leaves the worker without a model it could have had.
 */
import { isValidFolderName } from './model-folder.ts';
import type { EmbedDevice } from './progress.ts';
import { DEFAULT_MODEL, DEFAULT_MODEL_BASE, type EmbedDtype, type EncoderRuntimeChoice } from './settings.ts';

/** File name under the model base. */
export const MODEL_CONFIG_FILE = 'config.json';

export interface ModelConfig {
  /** Folder of the feature-extraction model (dense `embed`, `embed/multi`, colbert rerank, dense retrieve). */
  embedder: string;
  /** `q8` → onnx/model_quantized.onnx, `fp32` → onnx/model.onnx; either falls back to the file that exists. */
  dtype: EmbedDtype;
  /** `auto` = WebGPU with WASM fallback; a forced device never falls back. */
  device: 'auto' | 'webgpu' | 'wasm';
  /** Folder of a sequence-classification model; enables rerank method `cross-encoder` when it loads. */
  crossEncoder?: string;
  /** Folder of a learned-sparse (SPLADE) model built by `npm run models`; enables `embed/sparse`. `null` or `""` turns it off. */
  sparseEncoder?: string;
  /** Testing only: devices on which loading is made to fail (exercises the fallback). */
  failDevices?: EmbedDevice[];
  /** The encoder runtime (settings.ts `EncoderRuntimeChoice`); default `auto`. */
  runtime?: EncoderRuntimeChoice;
  /** Encoder workers of our runtime (0 = in the engine worker); default one per core, at most 4. */
  encoderWorkers?: number;
}

/** The learned-sparse model `npm run models` builds (scripts/models/splade.ts); it serves `embed/sparse` only. */
export const DEFAULT_SPARSE_MODEL = 'splade-tiny';

/**
 * Defaults (docs/models.md "Defaults chosen by measurement"): the MiniLM encoder in int8 — q8 and
 * fp32 are within ±0.01 nDCG@10 on the dev sets (fp32 no better), and q8 is under a third of the download (27 vs 90 MB).
 */
export const DEFAULT_MODEL_CONFIG: Readonly<ModelConfig> = Object.freeze({ embedder: DEFAULT_MODEL, dtype: 'q8', device: 'auto', sparseEncoder: DEFAULT_SPARSE_MODEL });

const DTYPES: readonly EmbedDtype[] = ['q8', 'fp32'];
const DEVICES: readonly ModelConfig['device'][] = ['auto', 'webgpu', 'wasm'];
const FAIL_DEVICES: readonly EmbedDevice[] = ['webgpu', 'wasm', 'cpu'];
const RUNTIMES: readonly EncoderRuntimeChoice[] = ['auto', 'kernels', 'transformers.js'];
const KNOWN = new Set(['embedder', 'dtype', 'device', 'crossEncoder', 'sparseEncoder', 'failDevices', 'runtime', 'encoderWorkers', '$comment']);

/** Validates a parsed config; invalid fields fall back to defaults with a warning each. */
export function parseModelConfig(raw: unknown): { config: ModelConfig; warnings: string[] } {
  const warnings: string[] = [];
  const config: ModelConfig = { ...DEFAULT_MODEL_CONFIG };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { config, warnings: ['models config: not a JSON object; using defaults'] };
  }
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN.has(k)) warnings.push(`models config: unknown field '${k}' ignored`);
  if (o.embedder !== undefined) {
    if (isValidFolderName(o.embedder)) config.embedder = o.embedder;
    else warnings.push(`models config: embedder must be a folder name under /models/; using '${config.embedder}'`);
  }
  if (o.dtype !== undefined) {
    if (DTYPES.includes(o.dtype as EmbedDtype)) config.dtype = o.dtype as EmbedDtype;
    else warnings.push(`models config: dtype must be one of ${DTYPES.join(', ')}; using '${config.dtype}'`);
  }
  if (o.device !== undefined) {
    if (DEVICES.includes(o.device as ModelConfig['device'])) config.device = o.device as ModelConfig['device'];
    else warnings.push(`models config: device must be one of ${DEVICES.join(', ')}; using '${config.device}'`);
  }
  if (o.crossEncoder !== undefined && o.crossEncoder !== null && o.crossEncoder !== '') {
    if (isValidFolderName(o.crossEncoder)) config.crossEncoder = o.crossEncoder;
    else warnings.push('models config: crossEncoder must be a folder name under /models/; no cross-encoder');
  }
  if (o.sparseEncoder === null || o.sparseEncoder === '') delete config.sparseEncoder;
  else if (o.sparseEncoder !== undefined) {
    if (isValidFolderName(o.sparseEncoder)) config.sparseEncoder = o.sparseEncoder;
    else warnings.push(`models config: sparseEncoder must be a folder name under /models/ (or null for none); using '${config.sparseEncoder}'`);
  }
  if (o.failDevices !== undefined) {
    if (Array.isArray(o.failDevices) && o.failDevices.every((d) => FAIL_DEVICES.includes(d as EmbedDevice))) config.failDevices = o.failDevices as EmbedDevice[];
    else warnings.push(`models config: failDevices must list devices among ${FAIL_DEVICES.join(', ')}; ignored`);
  }
  if (o.runtime !== undefined) {
    if (RUNTIMES.includes(o.runtime as EncoderRuntimeChoice)) config.runtime = o.runtime as EncoderRuntimeChoice;
    else warnings.push(`models config: runtime must be one of ${RUNTIMES.join(', ')}; using auto`);
  }
  if (o.encoderWorkers !== undefined) {
    if (Number.isInteger(o.encoderWorkers) && (o.encoderWorkers as number) >= 0 && (o.encoderWorkers as number) <= 16) config.encoderWorkers = o.encoderWorkers as number;
    else warnings.push('models config: encoderWorkers must be an integer 0..16; using the default');
  }
  return { config, warnings };
}

/**
 * Reads `<base>config.json` (fetch in the browser, revalidated; the filesystem in Node). A missing
 * file gives the defaults without a warning; an unreadable one gives the defaults with one.
 */
export async function readModelConfig(base = DEFAULT_MODEL_BASE, node = false): Promise<{ config: ModelConfig; warnings: string[]; source: 'file' | 'defaults' }> {
  const path = `${base}${MODEL_CONFIG_FILE}`;
  let text: string | undefined;
  try {
    if (node) {
      const fsName = 'node:fs/promises';
      const fs = (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises');
      text = await fs.readFile(path, 'utf8').catch((e: { code?: string }) => {
        if (e.code === 'ENOENT') return undefined;
        throw e;
      });
    } else {
      const res = await fetch(path, { cache: 'no-cache' });
      if (res.ok && !/text\/html/i.test(res.headers.get('content-type') ?? '')) text = await res.text();
      else if (res.status !== 404 && !res.ok) throw new Error(`HTTP ${res.status}`);
    }
  } catch (e) {
    return { config: { ...DEFAULT_MODEL_CONFIG }, warnings: [`models config: cannot read ${path} (${e instanceof Error ? e.message : String(e)}); using defaults`], source: 'defaults' };
  }
  if (text === undefined) return { config: { ...DEFAULT_MODEL_CONFIG }, warnings: [], source: 'defaults' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { config: { ...DEFAULT_MODEL_CONFIG }, warnings: [`models config: ${path} is not JSON (${e instanceof Error ? e.message : String(e)}); using defaults`], source: 'defaults' };
  }
  return { ...parseModelConfig(raw), source: 'file' };
}
