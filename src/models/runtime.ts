import type { Embedder, Reranker } from '../engine/contracts.ts';
import type { ModelStatus } from '../protocol/control.ts';
import { catalogEntry, type CatalogEntry } from './catalog.ts';
import { ColbertReranker } from './colbert-reranker.ts';
import { CrossEncoderReranker } from './cross-encoder.ts';
import { errorMessage } from './devices.ts';
import { ModelUnavailableError, UnembeddableInputError } from './errors.ts';
import { wasmThreads } from './embedder.ts';
import { loadEncoder, type LoadedEncoder } from './encoder-choice.ts';
import { readModelConfig, type ModelConfig } from './model-config.ts';
import { resolveModelFolder, type ModelFolder } from './model-folder.ts';
import type { ModelLoadEvent } from './progress.ts';
import { decodePrecomputed, lookupPrecomputed, precomputedFileName, precomputedMismatch, type PrecomputedTable } from './precomputed.ts';
import { DEFAULT_MODEL_BASE, type EmbedDtype, type EmbedderSettings } from './settings.ts';
import { detectModelSupport } from './support.ts';
import { LazyCrossEncoder } from './lazy-cross-encoder.ts';

export type ModelEventListener = (level: 'info' | 'warning' | 'error', message: string, data?: unknown) => void;

export interface ModelRuntimeOptions extends Partial<EmbedderSettings> {
  /** The models config; read from `<modelBase>config.json` when absent. */
  config?: ModelConfig;
  /** The person's pick (model-choice.ts), applied over the config's `embedder` (and `dtype`). */
  choice?: { embedder: string; dtype?: EmbedDtype };
  /**
   * The embedder's weights start loading once this settles (default: at once). The worker passes
   * "the index has opened" so a cold start's first sparse answer does not compete with the model.
   */
  loadAfter?: Promise<unknown>;
  /**
   * Folder (URL path, ending in '/') where precomputed document vectors may lie, as
   * `vectors-<model folder>.bin` (precomputed.ts; the playground's sample corpus). Read on the first
   * document embedding; a table made by another model is ignored with a log line. Default: none.
   */
  precomputedBase?: string;
}

/** A failed model load is retried by the next call after this long. */
const RETRY_AFTER_MS = 2_000;

/** Log lines a late subscriber still receives (the load history: device choice, fallbacks, failures). */
const REPLAY_LINES = 32;

/**
 * The models of the worker, configured by `/models/config.json` (model-config.ts). The embedder's
 * identity and dimension are known before its weights load (manifest, or config.json + ONNX hash),
 * so capabilities are fixed at once; `embed`/`tokenVectors` wait for the load and reject if it
 * failed, which the server reports as -32010 while keeping the capability (§13.2). A configured
 * cross-encoder is offered when its folder resolves (its identity needs no weights when it has a
 * manifest); its weights load after the embedder's, or on its first use, never before `open`
 * resolves, so the first sparse answer waits for no model weights (issue 8, seam 4).
 */
export class ModelRuntime {
  readonly config: ModelConfig;
  readonly folder: ModelFolder;
  readonly identity: string;
  readonly dimension: number;
  readonly normalized: boolean;
  readonly embedder: Embedder;
  /** MaxSim over the embedder's token vectors (§7.6 `colbert`). */
  readonly reranker: ColbertReranker;
  readonly crossEncoder?: LazyCrossEncoder;
  /** What the project measured about this model (catalog.ts), when it is a built-in one. */
  readonly catalog?: CatalogEntry;
  private loading: Promise<LoadedEncoder>;
  /** Starts a fresh load (the first one is started by `open`). */
  private readonly load: () => Promise<LoadedEncoder>;
  /** When the current load failed, for the retry back-off; undefined while it has not failed. */
  private failedAt: number | undefined;
  private readonly listeners = new Set<ModelEventListener>();
  private readonly history: [level: 'info' | 'warning' | 'error', message: string, data?: unknown][];
  private statusNow: ModelStatus;
  /** The precomputed table, fetched on the first document embedding (undefined: none usable). */
  private precomputed: Promise<PrecomputedTable | undefined> | undefined;
  private readonly precomputedUrl: string | undefined;
  private everLoaded = false;
  private lastLoadFailed = false;

  private constructor(
    config: ModelConfig,
    folder: ModelFolder,
    dimension: number,
    loading: Promise<LoadedEncoder>,
    load: () => Promise<LoadedEncoder>,
    crossEncoder: LazyCrossEncoder | undefined,
    status: ModelStatus,
    history: ModelRuntime['history'],
    precomputedBase: string | undefined,
  ) {
    this.config = config;
    this.folder = folder;
    this.identity = folder.identity;
    this.dimension = dimension;
    this.normalized = folder.normalized;
    this.load = load;
    this.loading = this.watch(loading);
    this.crossEncoder = crossEncoder;
    this.statusNow = status;
    this.history = history;
    this.catalog = catalogEntry(folder.name);
    this.precomputedUrl = precomputedBase === undefined ? undefined : `${precomputedBase}${precomputedFileName(folder.name)}`;
    this.embedder = {
      identity: this.identity,
      dimension,
      normalized: this.normalized,
      minSimilarity: this.catalog?.minSimilarity,
      fusionWeights: this.catalog?.fusionWeights,
      ready: () => this.everLoaded,
      embed: (texts, kind, signal) =>
        kind === 'document' && this.precomputedUrl ? this.embedDocuments(texts, signal) : this.loaded().then((m) => m.embed(texts, kind, signal)),
    };
    this.reranker = new ColbertReranker(this.identity, () => this.loaded());
  }

  /**
   * The runtime for the configured models, or undefined when the configured embedder folder is not
   * served (or, for a folder whose config.json names no dimension, does not load).
   */
  static async open(options: ModelRuntimeOptions = {}): Promise<ModelRuntime | undefined> {
    const support = await detectModelSupport();
    const base = options.modelBase ?? DEFAULT_MODEL_BASE;
    const history: ModelRuntime['history'] = [];
    let runtime: ModelRuntime | undefined;
    const emit = (level: 'info' | 'warning' | 'error', message: string, data?: unknown) => {
      history.push([level, message, data]);
      if (history.length > REPLAY_LINES) history.shift();
      if (runtime) for (const l of runtime.listeners) l(level, message, data);
      else if (level !== 'info') console.warn(`[models] ${message}`);
    };

    const read = options.config ? { config: options.config, warnings: [] } : await readModelConfig(base, support.node);
    for (const w of read.warnings) emit('warning', w);
    const config = options.choice ? { ...read.config, ...options.choice } : read.config;
    if (options.choice) emit('info', `model ${options.choice.embedder} chosen in this browser (over /models/config.json's ${read.config.embedder})`);
    const settings: Partial<EmbedderSettings> = {
      ...options,
      modelBase: base,
      model: config.embedder,
      dtype: config.dtype,
      device: options.device ?? config.device,
      failDevices: options.failDevices ?? config.failDevices,
      runtime: options.runtime ?? config.runtime,
      encoderWorkers: options.encoderWorkers ?? config.encoderWorkers,
    };

    let folder: ModelFolder;
    try {
      folder = await resolveModelFolder(base, config.embedder, config.dtype, support.node);
    } catch (e) {
      emit('warning', `model ${config.embedder} is not available: ${errorMessage(e)}`);
      return undefined;
    }
    for (const n of folder.notes) emit('info', `model: ${n}`);

    const status: ModelStatus = { name: folder.name, identity: folder.identity, state: 'loading', progress: 0 };
    const setStatus = (s: Partial<ModelStatus>) => Object.assign(status, s); // the runtime's statusNow is this object
    const { loadAfter: _gate, choice: _choice, ...embedderSettings } = settings as typeof settings & { loadAfter?: unknown; choice?: unknown };
    const load = (): Promise<LoadedEncoder> => {
      const t0 = performance.now();
      setStatus({ state: 'loading', progress: 0, error: undefined });
      const onProgress = (e: ModelLoadEvent) => onLoadEvent(e, folder.name, emit, setStatus);
      const restarted = (reason: string) => emit('warning', `model ${folder.name}: an encoder worker stopped (${reason}); replaced it, its batch is retried`);
      return loadEncoder({ ...embedderSettings, onProgress }, folder, emit, restarted).then(
        (model) => {
          const loadMs = Math.round(performance.now() - t0);
          const threads = model.device === 'wasm' && model.runtime.startsWith('transformers.js') ? wasmThreads() : undefined;
          setStatus({ state: 'ready', progress: 1, device: model.device, loadMs, threads, runtime: model.runtime });
          const on = threads ? `${model.device} (${threads} thread${threads > 1 ? 's' : ''})` : model.device;
          emit('info', `model ${folder.name} ready on ${on} in ${loadMs} ms, runtime ${model.runtime}`, { identity: folder.identity, device: model.device, loadMs, threads, runtime: model.runtime });
          return model;
        },
        (e: unknown) => {
          const error = errorMessage(e);
          setStatus({ state: 'failed', error });
          emit('error', `model ${folder.name} failed to load: ${error}`);
          throw e;
        },
      );
    };
    // One quick second try hides a transient fetch failure (several tabs loading at once).
    const loadTwice = () => load().catch(() => delay(500).then(load));
    // Without a known width the first inference tells it, and `open` must wait for that load: it
    // cannot also wait for `loadAfter` (the index opens only after this returns).
    const gate = folder.dimension === undefined ? Promise.resolve() : (options.loadAfter ?? Promise.resolve()).catch(() => undefined);
    const loading = gate.then(loadTwice);
    loading.catch(() => undefined);

    let crossEncoder: LazyCrossEncoder | undefined;
    const ceName = config.crossEncoder;
    if (ceName) {
      try {
        const ceFolder = await resolveModelFolder(base, ceName, config.dtype, support.node);
        const { batchSize: _embedderBatch, loadAfter: _g, choice: _c, ...shared } = settings as typeof settings & { loadAfter?: unknown; choice?: unknown };
        crossEncoder = new LazyCrossEncoder(ceFolder, () => {
          const c0 = performance.now();
          return CrossEncoderReranker.load({ ...shared, model: ceName, onProgress: (e) => onLoadEvent(e, ceName, emit, () => undefined) }, ceFolder).then(
            (ce) => {
              const loadMs = Math.round(performance.now() - c0);
              status.crossEncoder = { name: ceName, identity: ce.identity, device: ce.device, loadMs };
              emit('info', `cross-encoder ${ceName} ready on ${ce.device} in ${loadMs} ms`, { identity: ce.identity });
              return ce;
            },
            (e: unknown) => {
              emit('error', `cross-encoder ${ceName} failed to load: ${errorMessage(e)}`);
              throw e;
            },
          );
        });
        // In the background once the embedder's load settled: never ahead of the first sparse answer.
        const ce = crossEncoder;
        void loading.then(() => undefined, () => undefined).then(() => ce.loaded()).catch(() => undefined);
      } catch (e) {
        emit('warning', `cross-encoder ${ceName} is not available (rerank method 'cross-encoder' not offered): ${errorMessage(e)}`);
      }
    }

    let dimension = folder.dimension;
    if (dimension === undefined) {
      // No manifest and no width in config.json: the first inference tells.
      try {
        dimension = (await loading).dimension;
      } catch {
        return undefined;
      }
    }
    runtime = new ModelRuntime(config, folder, dimension, loading, loadTwice, crossEncoder, status, history, options.precomputedBase);
    return runtime;
  }

  /**
   * The encoder behind the RCP `embed` and `embed/multi` methods. `embed` refuses (-32602, naming
   * the input) a text the model cannot represent, whose vector would be all zeros: a zero vector
   * is not the unit vector `embed.normalized: true` promises, and no direction to compare.
   */
  async encoder(): Promise<LoadedEncoder> {
    const model = await this.loaded();
    return Object.assign(Object.create(model) as LoadedEncoder, {
      embed: async (texts: string[], kind: 'query' | 'document', signal?: AbortSignal) => {
        const vectors = await model.embed(texts, kind, signal);
        const zero = vectors.findIndex((v) => !v.some((x) => x !== 0));
        if (zero >= 0) throw new UnembeddableInputError(`inputs[${zero}]`, 'no part of this text is in the model\'s vocabulary, so it has no embedding');
        return vectors;
      },
    });
  }

  /**
   * Document vectors from the precomputed table where it has the exact text, the model for the
   * rest: a corpus the table covers needs no inference (nor the model loaded) at all.
   */
  private async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const table = await (this.precomputed ??= this.readPrecomputed());
    const found = table ? await lookupPrecomputed(table, texts) : texts.map(() => undefined);
    const missing = found.flatMap((v, i) => (v ? [] : [i]));
    if (missing.length) {
      const model = await this.loaded();
      const vectors = await model.embed(missing.map((i) => texts[i]), 'document', signal);
      missing.forEach((i, j) => (found[i] = vectors[j]));
    }
    signal?.throwIfAborted();
    return found as Float32Array[];
  }

  /** Fetches and checks the table; undefined (with a log line unless simply absent) when it cannot be used. */
  private async readPrecomputed(): Promise<PrecomputedTable | undefined> {
    const url = this.precomputedUrl!;
    try {
      const res = await fetch(url);
      if (res.status === 404 || /text\/html/i.test(res.headers.get('content-type') ?? '')) return undefined;
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const table = decodePrecomputed(new Uint8Array(await res.arrayBuffer()));
      const mismatch = precomputedMismatch(table.header, this);
      if (mismatch) {
        this.log('warning', `precomputed vectors ${url} ignored: ${mismatch}`);
        return undefined;
      }
      this.log('info', `precomputed vectors ${url}: ${table.header.count} document vectors of ${this.identity}`, { count: table.header.count });
      return table;
    } catch (e) {
      this.log('warning', `precomputed vectors ${url} not used: ${errorMessage(e)}`);
      return undefined;
    }
  }

  private log(level: 'info' | 'warning' | 'error', message: string, data?: unknown): void {
    this.history.push([level, message, data]);
    if (this.history.length > REPLAY_LINES) this.history.shift();
    for (const l of this.listeners) l(level, message, data);
    if (level !== 'info') console.warn(`[models] ${message}`);
  }

  /** Rerankers in preference order (the first is the default `rerank.method`): cross-encoder when loaded, then colbert. */
  rerankers(): Reranker[] {
    return this.crossEncoder ? [this.crossEncoder, this.reranker] : [this.reranker];
  }

  /**
   * Resolves with the loaded model; rejects with a ModelUnavailableError (the server answers -32010,
   * retryable) if loading failed. A failed
   * load (a network hiccup while several tabs fetch the weights at once, say) is retried by the
   * next call once RETRY_AFTER_MS have passed, so the worker heals without a reload.
   */
  loaded(): Promise<LoadedEncoder> {
    if (this.failedAt !== undefined && Date.now() - this.failedAt >= RETRY_AFTER_MS) {
      this.failedAt = undefined;
      this.loading = this.watch(this.load());
    }
    return this.loading.catch((e: unknown) => {
      throw new ModelUnavailableError(`model ${this.folder.name} is unavailable: ${errorMessage(e)}`, e);
    });
  }

  status(): ModelStatus {
    return structuredClone(this.statusNow);
  }

  /**
   * What `initialize` says about the model behind `embed.identity` (`_meta.models.embed`): which
   * runtime runs it once loaded, and notes. Both runtimes run the same weights (our int8 weight file
   * holds the int8 ONNX graph's), so vectors of one identity stay comparable whichever ran.
   */
  identityNotes(): { identity: string; state: ModelStatus['state']; runtime?: string; notes: string[] } {
    const { state, runtime } = this.statusNow;
    const notes = [...this.folder.notes];
    if (runtime) notes.push(`runtime: ${runtime}`);
    else if (state === 'loading') notes.push('runtime: chosen when the weights load (our WASM kernels where they cover the model, else transformers.js)');
    return { identity: this.identity, state, ...(runtime ? { runtime } : {}), notes };
  }

  /** True while the model has never loaded and its last load failed: what a new session is told (worker.ts). */
  get loadFailed(): boolean {
    return this.lastLoadFailed && !this.everLoaded;
  }

  private watch(loading: Promise<LoadedEncoder>): Promise<LoadedEncoder> {
    loading.then(
      () => ((this.everLoaded = true), (this.lastLoadFailed = false)),
      () => {
        this.failedAt = Date.now();
        this.lastLoadFailed = true;
      },
    );
    return loading;
  }

  /**
   * Load events as log lines for opted-in RCP clients (§17.1). A new listener first receives the
   * load history so far (bounded), so a session that connects after a fallback still hears of it.
   * Returns an unsubscribe function.
   */
  subscribe(listener: ModelEventListener): () => void {
    for (const [level, message, data] of this.history) listener(level, message, data);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const delay = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

function onLoadEvent(
  e: ModelLoadEvent,
  name: string,
  emit: (level: 'info' | 'warning' | 'error', message: string, data?: unknown) => void,
  setStatus: (s: Partial<ModelStatus>) => void,
): void {
  if (e.status === 'device') {
    setStatus({ device: e.device });
    if (e.skippedSoftwareGpu) emit('info', `model ${name}: the only WebGPU adapter is a software fallback (no GPU), slower than WASM; using ${e.device}`, { device: e.device });
    if (e.fallbackFrom) emit('warning', `model ${name}: ${e.fallbackFrom} failed (${e.reason ?? 'unknown'}); using ${e.device}`, { fallbackFrom: e.fallbackFrom, device: e.device });
    return;
  }
  if (e.status === 'progress' && 'progress' in e && typeof e.progress === 'number') {
    setStatus({ progress: Math.min(1, e.progress / 100) });
    return;
  }
  if (e.status === 'done' && 'file' in e) emit('info', `model ${name}: loaded ${String(e.file)}`);
}
