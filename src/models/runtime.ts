import type { Embedder, Reranker } from '../engine/contracts.ts';
import type { ModelStatus } from '../protocol/control.ts';
import { catalogEntry, DEFAULT_DECISION, type CatalogEntry } from './catalog.ts';
import { ColbertReranker } from './colbert-reranker.ts';
import { errorMessage } from './devices.ts';
import { ModelUnavailableError, UnembeddableInputError } from '../engine/errors.ts';
import type { LoadedEncoder } from './encoder-choice.ts';
import { readModelConfig, type ModelConfig } from './model-config.ts';
import { resolveModelFolder, type ModelFolder } from './model-folder.ts';
import { embedderLoader, openCrossEncoder, openSparseEncoder } from './model-loader.ts';
import { ModelLog, type ModelEventListener } from './model-log.ts';
import { decodePrecomputed, lookupPrecomputed, precomputedFileName, precomputedMismatch, type PrecomputedTable } from './precomputed.ts';
import { DEFAULT_MODEL_BASE, type EmbedDtype, type EmbedderSettings } from './settings.ts';
import { detectModelSupport } from './support.ts';
import type { LazyCrossEncoder } from './lazy-cross-encoder.ts';
import type { LazySparseEncoder } from './lazy-sparse-encoder.ts';

export type { ModelEventListener } from './model-log.ts';

export interface ModelRuntimeOptions extends Partial<EmbedderSettings> {
  /** The models config; read from `<modelBase>config.json` when absent. */
  config?: ModelConfig;
  /** The person's pick (model-choice.ts), applied over the config's `embedder` (and `dtype`). */
  choice?: { embedder: string; dtype?: EmbedDtype };
  /**
   * The embedder's weights start loading once this settles (default: at once), or as soon as
   * something needs them (a query embedding, `embed`). The worker passes "the index has opened"
   * (for a bundle: "its first answer has gone") so a cold start's first sparse answer does not
   * compete with the model's download and compile.
   */
  loadAfter?: Promise<unknown>;
  /**
   * Folder (URL path, ending in '/') where precomputed document vectors may lie, as
   * `vectors-<model folder>.bin` (precomputed.ts; the playground's sample corpus). Read on the first
   * document embedding; a table made by another model is ignored with a log line. Default: none.
   */
  precomputedBase?: string;
}

/** The `initialize` model note that names the default decision (catalog.ts) and whether this model is it. */
export const defaultNote = (name: string): string =>
  name === DEFAULT_DECISION.model ? `default model: ${name} (${DEFAULT_DECISION.why})` : `model chosen: ${name}; the default is ${DEFAULT_DECISION.model} (${DEFAULT_DECISION.why})`;

/** A failed model load is retried by the next call after this long. */
const RETRY_AFTER_MS = 2_000;

/** What `open` found and started, for the constructor. */
interface RuntimeParts {
  config: ModelConfig;
  folder: ModelFolder;
  dimension: number;
  /** The first load, started by `open` once its gate (`loadAfter`) settles. */
  loading: Promise<LoadedEncoder>;
  /** Opens that gate now: something needs the weights. */
  demand: () => void;
  /** Starts a fresh load (a retry after a failure). */
  load: () => Promise<LoadedEncoder>;
  crossEncoder?: LazyCrossEncoder;
  sparseEncoder?: LazySparseEncoder;
  /** The status object the loaders keep up to date. */
  status: ModelStatus;
  log: ModelLog;
  precomputedBase?: string;
}

/**
 * The models of the worker, configured by `/models/config.json` (model-config.ts). The embedder's
 * identity and dimension are known before its weights load (manifest, or config.json + ONNX hash),
 * so capabilities are fixed at once; `embed`/`tokenVectors` wait for the load and reject if it
 * failed, which the server reports as -32010 while keeping the capability (§13.2). A configured
 * cross-encoder is offered when its folder resolves (its identity needs no weights when it has a
 * manifest); its weights load after the embedder's, or on its first use, never before `open`
 * resolves, so the first sparse answer waits for no model weights (issue 8, seam 4). The configured
 * learned-sparse encoder (`embed/sparse`) is offered the same way and loads on its first call only.
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
  /** The learned-sparse encoder behind `embed/sparse` (weights loaded on its first use). */
  readonly sparseEncoder?: LazySparseEncoder;
  /** What the project measured about this model (catalog.ts), when it is a built-in one. */
  readonly catalog?: CatalogEntry;
  private loading: Promise<LoadedEncoder>;
  /** Starts a fresh load (the first one is started by `open`). */
  private readonly load: () => Promise<LoadedEncoder>;
  /** When the current load failed, for the retry back-off; undefined while it has not failed. */
  private failedAt: number | undefined;
  private readonly log: ModelLog;
  private readonly statusNow: ModelStatus;
  /** The precomputed table, fetched on the first document embedding (undefined: none usable). */
  private precomputed: Promise<PrecomputedTable | undefined> | undefined;
  private readonly precomputedUrl: string | undefined;
  /** The model once it has loaded (what the engine asks of it synchronously; undefined before). */
  private current: LoadedEncoder | undefined;
  private readonly demand: () => void;
  private lastLoadFailed = false;

  private constructor(p: RuntimeParts) {
    this.config = p.config;
    this.folder = p.folder;
    this.identity = p.folder.identity;
    this.dimension = p.dimension;
    this.normalized = p.folder.normalized;
    this.load = p.load;
    this.loading = this.watch(p.loading);
    this.demand = p.demand;
    this.crossEncoder = p.crossEncoder;
    this.sparseEncoder = p.sparseEncoder;
    this.statusNow = p.status;
    this.log = p.log;
    this.catalog = catalogEntry(p.folder.name);
    this.precomputedUrl = p.precomputedBase === undefined ? undefined : `${p.precomputedBase}${precomputedFileName(p.folder.name)}`;
    this.embedder = {
      identity: this.identity,
      dimension: p.dimension,
      normalized: this.normalized,
      minSimilarity: this.catalog?.minSimilarity,
      fusionWeights: this.catalog?.fusionWeights,
      crossLingual: this.catalog?.crossLingual,
      ready: () => this.current !== undefined,
      prepare: () => void this.loaded().catch(() => undefined),
      whenReady: () => this.loaded().then(() => true, () => false),
      parallelism: () => this.current?.parallelism() ?? 1,
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
    const log = new ModelLog();

    const read = options.config ? { config: options.config, warnings: [] } : await readModelConfig(base, support.node);
    for (const w of read.warnings) log.emit('warning', w);
    const config = options.choice ? { ...read.config, ...options.choice } : read.config;
    if (options.choice) log.emit('info', `model ${options.choice.embedder} chosen in this browser (over /models/config.json's ${read.config.embedder})`);
    const { loadAfter, choice: _choice, config: _config, precomputedBase, ...given } = options;
    const settings: Partial<EmbedderSettings> = {
      ...given,
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
      log.emit('warning', `model ${config.embedder} is not available: ${errorMessage(e)}`);
      return undefined;
    }
    for (const n of folder.notes) log.emit('info', `model: ${n}`);

    const status: ModelStatus = { name: folder.name, identity: folder.identity, state: 'loading', progress: 0 };
    const load = embedderLoader(folder, settings, log, status);
    // Without a known width the first inference tells it, and `open` must wait for that load: it
    // cannot also wait for `loadAfter` (the index opens only after this returns).
    // A call that needs the weights (a query embedding, `embed`) starts the load at once: the gate
    // postpones only a load nobody has asked for yet.
    let demand!: () => void;
    const demanded = new Promise<void>((resolve) => (demand = resolve));
    const gate = folder.dimension === undefined ? Promise.resolve() : Promise.race([(loadAfter ?? Promise.resolve()).catch(() => undefined), demanded]);
    const loading = gate.then(load);
    loading.catch(() => undefined);

    // Both folders resolve at once (a manifest read each); neither loads weights here.
    const [crossEncoder, sparseEncoder] = await Promise.all([
      config.crossEncoder ? openCrossEncoder({ name: config.crossEncoder, base, dtype: config.dtype, node: support.node, settings, log, status, after: loading }) : undefined,
      config.sparseEncoder ? openSparseEncoder({ name: config.sparseEncoder, base, node: support.node, settings, log, status }) : undefined,
    ]);

    let dimension = folder.dimension;
    if (dimension === undefined) {
      // No manifest and no width in config.json: the first inference tells.
      try {
        dimension = (await loading).dimension;
      } catch {
        return undefined;
      }
    }
    return new ModelRuntime({ config, folder, dimension, loading, demand, load, crossEncoder, sparseEncoder, status, log, precomputedBase });
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
        this.log.emit('warning', `precomputed vectors ${url} ignored: ${mismatch}`);
        return undefined;
      }
      this.log.emit('info', `precomputed vectors ${url}: ${table.header.count} document vectors of ${this.identity}`, { count: table.header.count });
      return table;
    } catch (e) {
      this.log.emit('warning', `precomputed vectors ${url} not used: ${errorMessage(e)}`);
      return undefined;
    }
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
    this.demand();
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
    const notes = [...this.folder.notes, defaultNote(this.folder.name)];
    if (runtime) notes.push(`runtime: ${runtime}`);
    else if (state === 'loading') notes.push('runtime: chosen when the weights load (our WASM kernels where they cover the model, else transformers.js)');
    return { identity: this.identity, state, ...(runtime ? { runtime } : {}), notes };
  }

  /** True while the model has never loaded and its last load failed: what a new session is told (worker.ts). */
  get loadFailed(): boolean {
    return this.lastLoadFailed && this.current === undefined;
  }

  private watch(loading: Promise<LoadedEncoder>): Promise<LoadedEncoder> {
    loading.then(
      (model) => ((this.current = model), (this.lastLoadFailed = false)),
      () => {
        this.failedAt = Date.now();
        this.lastLoadFailed = true;
      },
    );
    return loading;
  }

  /**
   * Load events as log lines for opted-in RCP clients (§17.1): the bounded history first, so a
   * session that connects after a fallback still hears of it. Returns an unsubscribe function.
   */
  subscribe(listener: ModelEventListener): () => void {
    return this.log.subscribe(listener);
  }
}
