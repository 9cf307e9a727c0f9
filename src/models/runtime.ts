import type { Embedder } from '../engine/contracts.ts';
import { backendUnavailable } from '../protocol/errors.ts';
import { ColbertReranker } from './colbert-reranker.ts';
import { loadEmbedder, type TransformersEmbedder } from './embedder.ts';
import { modelIdentity, readManifest, type ModelManifest } from './manifest.ts';
import type { ModelLoadEvent } from './progress.ts';
import { DEFAULT_MODEL, DEFAULT_MODEL_BASE, ONNX_FILE, type EmbedderSettings } from './settings.ts';

/** What the page and status displays see of the model. */
export interface ModelStatus {
  name: string;
  identity: string;
  state: 'loading' | 'ready' | 'failed';
  device?: string;
  /** 0..1 while files load. */
  progress?: number;
  error?: string;
}

export type ModelEventListener = (level: 'info' | 'warning' | 'error', message: string, data?: unknown) => void;

/**
 * The dense model of the worker, known from its manifest before the weights load. Capabilities
 * (dimension, identity) are fixed at once; `embed`/`tokenVectors` wait for the load and reject if
 * it failed, which the server reports as -32010 while keeping the capability (§13.2).
 */
export class ModelRuntime {
  readonly manifest: ModelManifest;
  readonly identity: string;
  readonly embedder: Embedder;
  readonly reranker: ColbertReranker;
  private readonly loading: Promise<TransformersEmbedder>;
  private readonly listeners = new Set<ModelEventListener>();
  private statusNow: ModelStatus;

  private constructor(manifest: ModelManifest, settings: Partial<EmbedderSettings>) {
    this.manifest = manifest;
    this.identity = modelIdentity(manifest, ONNX_FILE[settings.dtype ?? 'q8']);
    this.statusNow = { name: manifest.name, identity: this.identity, state: 'loading', progress: 0 };
    this.loading = loadEmbedder({ ...settings, onProgress: (e) => this.onLoadEvent(e) }).then(
      (model) => {
        if (model.identity !== this.identity) throw new Error(`model identity ${model.identity} ≠ manifest ${this.identity}`);
        this.statusNow = { ...this.statusNow, state: 'ready', progress: 1, device: model.device };
        this.emit('info', `model ${manifest.name} ready on ${model.device}`, { identity: this.identity, device: model.device });
        return model;
      },
      (e: unknown) => {
        const error = e instanceof Error ? e.message : String(e);
        this.statusNow = { ...this.statusNow, state: 'failed', error };
        this.emit('error', `model ${manifest.name} failed to load: ${error}`);
        throw e;
      },
    );
    this.loading.catch(() => undefined);
    const dimension = manifest.dimension;
    this.embedder = {
      identity: this.identity,
      dimension,
      normalized: manifest.normalized,
      embed: (texts, kind, signal) => this.loaded().then((m) => m.embed(texts, kind, signal)),
    };
    this.reranker = new ColbertReranker(this.identity, () => this.loaded());
  }

  /** The runtime for the configured model, or undefined when no model folder is served. */
  static async open(settings: Partial<EmbedderSettings> = {}): Promise<ModelRuntime | undefined> {
    const base = settings.modelBase ?? DEFAULT_MODEL_BASE;
    const name = settings.model ?? DEFAULT_MODEL;
    const manifest = await readManifest(base, name, false).catch(() => undefined);
    return manifest ? new ModelRuntime(manifest, settings) : undefined;
  }

  /** Resolves with the loaded model; rejects with -32010 (retryable) if loading failed. */
  loaded(): Promise<TransformersEmbedder> {
    return this.loading.catch((e: unknown) => {
      throw backendUnavailable(`model ${this.manifest.name} is unavailable: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  status(): ModelStatus {
    return { ...this.statusNow };
  }

  /** Load events as log lines for opted-in RCP clients (§17.1). Returns an unsubscribe function. */
  subscribe(listener: ModelEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(level: 'info' | 'warning' | 'error', message: string, data?: unknown): void {
    for (const l of this.listeners) l(level, message, data);
  }

  private onLoadEvent(e: ModelLoadEvent): void {
    if (e.status === 'device') {
      this.statusNow = { ...this.statusNow, device: e.device };
      if (e.fallbackFrom) this.emit('warning', `model: ${e.fallbackFrom} failed (${e.reason ?? 'unknown'}); using ${e.device}`);
      return;
    }
    if (e.status === 'progress' && 'progress' in e && typeof e.progress === 'number') {
      this.statusNow = { ...this.statusNow, progress: Math.min(1, e.progress / 100) };
      return;
    }
    if (e.status === 'done' && 'file' in e) this.emit('info', `model: loaded ${String(e.file)}`);
  }
}
