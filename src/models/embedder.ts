/**
 * The engine's `Embedder` on transformers.js: loads a model built by `npm run models` from the
 * app's own `/models/` (never a remote hub), picks a device with WebGPU → WASM fallback, and
 * returns mean-pooled, L2-normalised vectors. Also exposes per-token vectors of the same model
 * for `embed/multi` and MaxSim reranking.
 */
import { env, pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import type { Embedder } from '../engine/contracts.ts';
import { modelIdentity, readManifest, type ModelManifest } from './manifest.ts';
import type { EmbedDevice, ModelLoadEvent } from './progress.ts';
import { defaultEmbedderSettings, deviceCandidates, ONNX_FILE, ORT_WASM_FILES, type EmbedderSettings } from './settings.ts';
import { detectModelSupport, type ModelRuntimeSupport } from './support.ts';
import { toTokenMatrices, zeroNonFinite, type TokenMatrix } from './token-vectors.ts';

const POOLING = { pooling: 'mean', normalize: true } as const;

/** A loaded model. Calls are serialised: one inference at a time per instance. */
export class TransformersEmbedder implements Embedder {
  readonly normalized = true;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    /** §15.7 identity, see `modelIdentity`. */
    readonly identity: string,
    readonly dimension: number,
    /** The device inference runs on (after any fallback). */
    readonly device: EmbedDevice,
    readonly manifest: ModelManifest,
    private readonly extractor: FeatureExtractionPipeline,
    private readonly batchSize: number,
  ) {}

  /** Loads `settings.model` (defaults from `defaultEmbedderSettings`). Rejects if no device can run it. */
  static async load(overrides: Partial<EmbedderSettings> = {}): Promise<TransformersEmbedder> {
    const support = await detectModelSupport();
    const settings: EmbedderSettings = { ...defaultEmbedderSettings(support), ...overrides };
    configureEnvironment(settings, support);
    const manifest = await readManifest(settings.modelBase, settings.model, support.node);
    const onnxFile = ONNX_FILE[settings.dtype];
    const identity = modelIdentity(manifest, onnxFile);
    const emit = (e: ModelLoadEvent) => {
      try {
        settings.onProgress?.(e);
      } catch {
        // a listener's failure must not fail the load
      }
    };

    const candidates = deviceCandidates(settings, support);
    let lastError: unknown;
    for (const [i, device] of candidates.entries()) {
      let extractor: FeatureExtractionPipeline | undefined;
      try {
        extractor = (await pipeline('feature-extraction', settings.model, {
          device,
          dtype: settings.dtype,
          progress_callback: emit,
        })) as FeatureExtractionPipeline;
        // First inference is where WebGPU shader compilation and kernel support fail; do it now.
        const probe = (await extractor(['warm up'], POOLING)) as Tensor;
        const dimension = probe.dims[1];
        if (dimension !== manifest.dimension) throw new Error(`model output ${dimension}-d, manifest says ${manifest.dimension}`);
        emit({
          status: 'device',
          name: settings.model,
          device,
          ...(i > 0 ? { fallbackFrom: candidates[0], reason: errorMessage(lastError) } : {}),
        });
        return new TransformersEmbedder(identity, dimension, device, manifest, extractor, Math.max(1, settings.batchSize));
      } catch (e) {
        lastError = e;
        await extractor?.dispose().catch(() => undefined);
      }
    }
    throw lastError instanceof Error ? lastError : new Error(`cannot load ${settings.model}: ${errorMessage(lastError)}`);
  }

  /** One unit vector per text (a text with no known word gives the zero vector). `kind` is ignored: the model is symmetric. */
  embed(texts: string[], _kind: 'query' | 'document' = 'document', signal?: AbortSignal): Promise<Float32Array[]> {
    return this.serial(async () => {
      const out: Float32Array[] = [];
      for (let at = 0; at < texts.length; at += this.batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(at, at + this.batchSize);
        const tensor = (await this.extractor(batch.map(nonEmpty), POOLING)) as Tensor;
        const data = tensor.data as Float32Array;
        const d = this.dimension;
        for (let r = 0; r < batch.length; r++) out.push(zeroNonFinite(data.slice(r * d, (r + 1) * d)));
      }
      signal?.throwIfAborted();
      return out;
    });
  }

  /**
   * Per-token vectors of each text (the model's last_hidden_state), attention mask applied:
   * padding is dropped, and so are all-zero rows (out-of-vocabulary words, punctuation), which
   * carry no signal. Rows are L2-normalised, so MaxSim with dot = cosine.
   */
  tokenVectors(texts: string[], signal?: AbortSignal): Promise<TokenMatrix[]> {
    return this.serial(async () => {
      const out: TokenMatrix[] = [];
      for (let at = 0; at < texts.length; at += this.batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(at, at + this.batchSize).map(nonEmpty);
        const inputs = this.extractor.tokenizer(batch, { padding: true, truncation: true }) as { attention_mask: Tensor };
        const { last_hidden_state } = (await this.extractor.model(inputs)) as { last_hidden_state: Tensor };
        out.push(...toTokenMatrices(last_hidden_state, inputs.attention_mask));
      }
      signal?.throwIfAborted();
      return out;
    });
  }

  /** Releases the inference session. The instance must not be used afterwards. */
  async dispose(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.extractor.dispose();
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Convenience for `TransformersEmbedder.load`. */
export function loadEmbedder(overrides?: Partial<EmbedderSettings>): Promise<TransformersEmbedder> {
  return TransformersEmbedder.load(overrides);
}

/**
 * Points transformers.js at the app's own files only. `useBrowserCache` is off because the Cache
 * API would keep serving an old model under the same URL after a rebuild, while the identity is
 * read from the fresh manifest; HTTP caching with revalidation is used instead.
 */
function configureEnvironment(settings: EmbedderSettings, support: Readonly<ModelRuntimeSupport>): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = settings.modelBase;
  if (!support.node) {
    env.useBrowserCache = false;
    // transformers.js imports `onnxruntime-web/webgpu`, whose runtime is the asyncify build. The
    // explicit file URLs replace its default (a CDN URL). The wasm cache is off because it
    // re-imports the runtime from a blob: URL, which the app's CSP (script-src 'self') forbids.
    env.useWasmCache = false;
    const wasm = env.backends.onnx.wasm;
    if (wasm) wasm.wasmPaths = { mjs: `${settings.wasmPaths}${ORT_WASM_FILES[0]}`, wasm: `${settings.wasmPaths}${ORT_WASM_FILES[1]}` };
  }
}

/** An empty input tokenises to zero tokens, which ONNX Runtime cannot gather; one space is also zero tokens but keeps shapes valid after padding. */
function nonEmpty(text: string): string {
  return text.length ? text : ' ';
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
