/**
 * How the runtime loads its models (runtime.ts): the embedder's load, with its status and log
 * lines, tried twice; the configured cross-encoder, offered as soon as its folder resolves,
 * its weights loading after the embedder's (never ahead of the first sparse answer) or on first use;
 * and the configured learned-sparse encoder, offered when its folder resolves, loaded on first use.
 */
import type { ModelStatus } from '../protocol/control.ts';
import { CrossEncoderReranker } from './cross-encoder.ts';
import { errorMessage } from './devices.ts';
import { ortThreads } from './embedder.ts';
import { loadEncoder, type LoadedEncoder } from './encoder-choice.ts';
import { LazyCrossEncoder } from './lazy-cross-encoder.ts';
import { LazySparseEncoder } from './lazy-sparse-encoder.ts';
import { SparseEncoder, SPARSE_OUTPUT } from './sparse-encoder.ts';
import type { ModelLog } from './model-log.ts';
import { resolveModelFolder, type ModelFolder } from './model-folder.ts';
import type { ModelLoadEvent } from './progress.ts';
import type { EmbedderSettings } from './settings.ts';

/**
 * A function that loads the embedder of `folder`, keeping `status` (the object the runtime reports)
 * and the log up to date. One quick second try hides a transient fetch failure (several tabs
 * loading at once).
 */
export function embedderLoader(folder: ModelFolder, settings: Partial<EmbedderSettings>, log: ModelLog, status: ModelStatus): () => Promise<LoadedEncoder> {
  const load = (): Promise<LoadedEncoder> => {
    const t0 = performance.now();
    Object.assign(status, { state: 'loading', progress: 0, error: undefined });
    const onProgress = (e: ModelLoadEvent) => onLoadEvent(e, folder.name, log, status);
    const restarted = (reason: string) => log.emit('warning', `model ${folder.name}: an encoder worker stopped (${reason}); replaced it, its batch is retried`);
    return loadEncoder({ ...settings, onProgress }, folder, (level, message, data) => log.emit(level, message, data), restarted).then(
      (model) => {
        const loadMs = Math.round(performance.now() - t0);
        const threads = model.device === 'wasm' && model.runtime.startsWith('transformers.js') ? ortThreads() : undefined;
        Object.assign(status, { state: 'ready', progress: 1, device: model.device, loadMs, threads, runtime: model.runtime });
        const on = threads ? `${model.device} (${threads} thread${threads > 1 ? 's' : ''})` : model.device;
        log.emit('info', `model ${folder.name} ready on ${on} in ${loadMs} ms, runtime ${model.runtime}`, { identity: folder.identity, device: model.device, loadMs, threads, runtime: model.runtime });
        return model;
      },
      (e: unknown) => {
        const error = errorMessage(e);
        Object.assign(status, { state: 'failed', error });
        log.emit('error', `model ${folder.name} failed to load: ${error}`);
        throw e;
      },
    );
  };
  return () => load().catch(() => delay(500).then(load));
}

export interface CrossEncoderInputs {
  /** The configured cross-encoder's folder name. */
  name: string;
  base: string;
  dtype: EmbedderSettings['dtype'];
  node: boolean;
  /** The embedder's settings; the cross-encoder keeps its own batch size. */
  settings: Partial<EmbedderSettings>;
  log: ModelLog;
  status: ModelStatus;
  /** The embedder's load: the cross-encoder's weights load once it settled. */
  after: Promise<unknown>;
}

/** The configured cross-encoder, or undefined (with a warning) when its folder is not served. */
export async function openCrossEncoder(i: CrossEncoderInputs): Promise<LazyCrossEncoder | undefined> {
  let folder: ModelFolder;
  try {
    folder = await resolveModelFolder(i.base, i.name, i.dtype, i.node);
  } catch (e) {
    i.log.emit('warning', `cross-encoder ${i.name} is not available (rerank method 'cross-encoder' not offered): ${errorMessage(e)}`);
    return undefined;
  }
  const { batchSize: _embedderBatch, ...shared } = i.settings;
  const crossEncoder = new LazyCrossEncoder(folder, () => {
    const c0 = performance.now();
    return CrossEncoderReranker.load({ ...shared, model: i.name, onProgress: (e) => onLoadEvent(e, i.name, i.log) }, folder).then(
      (ce) => {
        const loadMs = Math.round(performance.now() - c0);
        i.status.crossEncoder = { name: i.name, identity: ce.identity, device: ce.device, loadMs };
        i.log.emit('info', `cross-encoder ${i.name} ready on ${ce.device} in ${loadMs} ms`, { identity: ce.identity });
        return ce;
      },
      (e: unknown) => {
        i.log.emit('error', `cross-encoder ${i.name} failed to load: ${errorMessage(e)}`);
        throw e;
      },
    );
  });
  // In the background once the embedder's load settled: never ahead of the first sparse answer.
  void i.after.then(() => undefined, () => undefined).then(() => crossEncoder.loaded()).catch(() => undefined);
  return crossEncoder;
}

export interface SparseEncoderInputs {
  /** The configured sparse encoder's folder name. */
  name: string;
  base: string;
  node: boolean;
  /** The embedder's settings (device, wasm paths); the sparse encoder batches by tokens itself. */
  settings: Partial<EmbedderSettings>;
  log: ModelLog;
  status: ModelStatus;
}

/**
 * The configured learned-sparse encoder, or undefined (with a warning) when its folder is not
 * served or is not one (its manifest must name the `sparse_embedding` output `npm run models` writes).
 */
export async function openSparseEncoder(i: SparseEncoderInputs): Promise<LazySparseEncoder | undefined> {
  let folder: ModelFolder;
  try {
    folder = await resolveModelFolder(i.base, i.name, 'fp32', i.node);
    const m = folder.manifest as (ModelFolder['manifest'] & { output?: unknown }) | undefined;
    if (m?.output !== SPARSE_OUTPUT || !(m.vocabularySize > 0)) throw new Error(`its manifest.json does not describe a learned-sparse model (output ${SPARSE_OUTPUT})`);
  } catch (e) {
    i.log.emit('warning', `sparse encoder ${i.name} is not available (embed/sparse not offered): ${errorMessage(e)}`);
    return undefined;
  }
  const { batchSize: _embedderBatch, ...shared } = i.settings;
  return new LazySparseEncoder(folder, folder.manifest!.vocabularySize, () => {
    const t0 = performance.now();
    return SparseEncoder.load({ ...shared, modelBase: i.base, onProgress: (e) => onLoadEvent(e, i.name, i.log) }, folder).then(
      (enc) => {
        const loadMs = Math.round(performance.now() - t0);
        i.status.sparseEncoder = { name: i.name, identity: enc.identity, device: enc.device, loadMs };
        i.log.emit('info', `sparse encoder ${i.name} ready on ${enc.device} in ${loadMs} ms`, { identity: enc.identity });
        return enc;
      },
      (e: unknown) => {
        i.log.emit('error', `sparse encoder ${i.name} failed to load: ${errorMessage(e)}`);
        throw e;
      },
    );
  });
}

const delay = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Device choice, fallbacks and file loads as log lines; progress into `status` when given. */
function onLoadEvent(e: ModelLoadEvent, name: string, log: ModelLog, status?: ModelStatus): void {
  if (e.status === 'device') {
    if (status) status.device = e.device;
    if (e.skippedSoftwareGpu) log.emit('info', `model ${name}: the only WebGPU adapter is a software fallback (no GPU), slower than WASM; using ${e.device}`, { device: e.device });
    if (e.fallbackFrom) log.emit('warning', `model ${name}: ${e.fallbackFrom} failed (${e.reason ?? 'unknown'}); using ${e.device}`, { fallbackFrom: e.fallbackFrom, device: e.device });
    return;
  }
  if (e.status === 'progress' && 'progress' in e && typeof e.progress === 'number') {
    if (status) status.progress = Math.min(1, e.progress / 100);
    return;
  }
  if (e.status === 'done' && 'file' in e) log.emit('info', `model ${name}: loaded ${String(e.file)}`);
}
