/**
 * The engine's `Embedder` on transformers.js: loads any feature-extraction model folder in the
 * transformers.js layout from the app's own `/models/` (never a remote hub) — one built by
 * `npm run models` (manifest.json) or one downloaded by a user (no manifest: identity from the
 * ONNX bytes, see model-folder.ts) — picks a device with WebGPU → WASM fallback, and returns
 * L2-normalised vectors of `last_hidden_state`, pooled and prefixed as the model's recipe says
 * (recipe.ts: mean over the attention mask, or the [CLS] row). Also
 * exposes per-token vectors of the same model for `embed/multi` and MaxSim reranking.
 */
import { AutoModel, env, FeatureExtractionPipeline, pipeline, type Tensor } from '@huggingface/transformers';
import type { Embedder } from '../engine/contracts.ts';
import { loadOnFirstDevice, safeEmitter } from './devices.ts';
import type { ModelManifest } from './manifest.ts';
import { forgetPrefetched, prefetchingFetch, resolveModelFolder, type ModelFolder } from './model-folder.ts';
import type { EmbedDevice } from './progress.ts';
import { defaultEmbedderSettings, ORT_WASM_FILES, type EmbedderSettings } from './settings.ts';
import { detectModelSupport, wasmThreads, type ModelRuntimeSupport } from './support.ts';
import { withPrefix, type EncoderRecipe } from './recipe.ts';
import { clsPooled, meanPooled, toTokenMatrices, zeroNonFinite, type TokenMatrix } from './token-vectors.ts';
import { PriorityLock } from './priority-lock.ts';
import { yieldToEventLoop } from '../util/abort.ts';
import { nonEmpty, tokenizeTruncated, tokenLimit, type TokenizedBatch } from './truncate.ts';
import { loadTokenizer } from './tokenizer-loader.ts';

/** The warm-up inference's pooling (only its shape is used). */
const POOLING = { pooling: 'mean', normalize: true } as const;

/** A loaded model. One inference at a time per instance, query batches first. */
export class TransformersEmbedder implements Embedder {
  readonly normalized = true;
  /** One inference at a time; query batches before waiting document batches. */
  private readonly lock = new PriorityLock();

  private constructor(
    /** §15.7 identity, see `resolveModelFolder`. */
    readonly identity: string,
    readonly dimension: number,
    /** The device inference runs on (after any fallback). */
    readonly device: EmbedDevice,
    /** The folder as resolved before loading (dtype in use, ONNX file, manifest if any). */
    readonly folder: ModelFolder,
    private readonly extractor: FeatureExtractionPipeline,
    private readonly batchSize: number,
  ) {}

  /** The runtime, for logs and status. */
  get runtime(): string {
    return `transformers.js (${this.device})`;
  }

  /** One call at a time (onnxruntime spreads a call over its own threads). */
  parallelism(): number {
    return 1;
  }

  /** The build manifest, when the folder has one (`npm run models` output). */
  get manifest(): ModelManifest | undefined {
    return this.folder.manifest;
  }

  /**
   * Loads `settings.model` (defaults from `defaultEmbedderSettings`). `folder`, when the caller has
   * already resolved it (ModelRuntime does, to advertise capabilities first), saves a second
   * hashing. Rejects if no device can run the model.
   */
  static async load(overrides: Partial<EmbedderSettings> = {}, folder?: ModelFolder): Promise<TransformersEmbedder> {
    const support = await detectModelSupport();
    const settings: EmbedderSettings = { ...defaultEmbedderSettings(support), ...overrides };
    configureEnvironment(settings, support);
    const resolved = folder ?? (await resolveModelFolder(settings.modelBase, settings.model, settings.dtype, support.node));
    useOneThreadFor(resolved, support);
    const emit = safeEmitter(settings.onProgress);

    const { value, device } = await loadOnFirstDevice(settings.model, settings, support, emit, async (device) => {
      let extractor: FeatureExtractionPipeline | undefined;
      try {
        const options = {
          device,
          dtype: resolved.dtype,
          progress_callback: emit,
          ...(support.node && settings.threads ? { session_options: { intraOpNumThreads: settings.threads } } : {}),
        };
        if (resolved.config.model_type === 'xlm-roberta') {
          // XLM-R's 250k-piece tokenizer through our own Unigram model (tokenizer-loader.ts), read
          // while the weights load: transformers.js's own takes 1.4–2 s of the cold load.
          const [tokenizer, model] = await Promise.all([loadTokenizer(resolved, settings.modelBase, support.node), AutoModel.from_pretrained(settings.model, options)]);
          extractor = new FeatureExtractionPipeline({ task: 'feature-extraction', model, tokenizer });
        } else {
          extractor = (await pipeline('feature-extraction', settings.model, options)) as FeatureExtractionPipeline;
        }
        // First inference is where WebGPU shader compilation and kernel support fail; do it now.
        const probe = (await extractor(['warm up'], POOLING)) as Tensor;
        if (probe.dims.length !== 2) throw new Error(`model output has shape [${probe.dims.join(', ')}], expected [batch, dimension]`);
        const dimension = probe.dims[1];
        if (resolved.dimension !== undefined && dimension !== resolved.dimension) {
          throw new Error(`model output ${dimension}-d, ${resolved.manifest ? 'manifest' : 'config.json'} says ${resolved.dimension}`);
        }
        return { extractor, dimension };
      } catch (e) {
        await extractor?.dispose().catch(() => undefined);
        throw e;
      }
    }).finally(() => forgetPrefetched(settings.modelBase, resolved));
    return new TransformersEmbedder(resolved.identity, value.dimension, device, resolved, value.extractor, Math.max(1, settings.batchSize));
  }

  /** How this model pools and which prefixes it expects (recipe.ts). */
  get recipe(): EncoderRecipe {
    return this.folder.recipe;
  }

  /**
   * One unit vector per text, pooled and prefixed as the model was trained (`kind` picks the
   * query or document prefix). A text the model cannot represent at all (a static model with no
   * known word) gives the zero vector, which dense search never matches. Texts are embedded in
   * batches of similar length (sorted by length, order restored), so a batch pads little.
   */
  async embed(texts: string[], kind: 'query' | 'document' = 'document', signal?: AbortSignal): Promise<Float32Array[]> {
    const inputs = withPrefix(this.recipe, texts, kind).map(nonEmpty);
    const order = lengthOrder(inputs);
    const out = new Array<Float32Array>(inputs.length);
    // Each batch takes the lock on its own, so a query can run between two document batches.
    for (let at = 0; at < order.length; at += this.batchSize) {
      // WASM inference runs on this thread and resolves through microtasks only: without a real
      // yield, a long run of document batches starves every request and message waiting behind it.
      if (kind === 'document') await yieldToEventLoop();
      signal?.throwIfAborted();
      const ids = order.slice(at, at + this.batchSize);
      const vectors = await this.lock.run(kind === 'query', () => this.embedBatch(ids.map((i) => inputs[i])));
      ids.forEach((i, j) => (out[i] = vectors[j]));
    }
    signal?.throwIfAborted();
    return out;
  }

  /** Pooling in one typed-array pass when the model outputs float32 (the pipeline's own pooling otherwise, e.g. fp16). */
  private async embedBatch(batch: string[]): Promise<Float32Array[]> {
    const inputs = this.tokenize(batch);
    const outputs = (await this.extractor.model(inputs)) as Record<string, Tensor | undefined>;
    // The output the feature-extraction pipeline pools, in its order of preference.
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (hidden && hidden.dims.length === 3 && hidden.data instanceof Float32Array) {
      return this.recipe.pooling === 'cls' ? clsPooled(hidden) : meanPooled(hidden, inputs.attention_mask);
    }
    const tensor = (await this.extractor(batch, { pooling: this.recipe.pooling, normalize: true })) as Tensor;
    const data = tensor.data as Float32Array;
    const d = this.dimension;
    return batch.map((_, r) => zeroNonFinite(Float32Array.from(data.subarray(r * d, (r + 1) * d))));
  }

  /** Tokenizes with padding; a text over the model's length is cut before its special tokens (truncate.ts), as upstream does. */
  private tokenize(batch: string[]): TokenizedBatch {
    return tokenizeTruncated(this.extractor.tokenizer, batch, tokenLimit(this.recipe.maxLength, this.extractor.tokenizer));
  }

  /**
   * Per-token vectors of each text (the model's last_hidden_state), attention mask applied:
   * padding is dropped, and so are all-zero rows (out-of-vocabulary words, punctuation), which
   * carry no signal. Rows are L2-normalised, so MaxSim with dot = cosine.
   */
  tokenVectors(texts: string[], signal?: AbortSignal): Promise<TokenMatrix[]> {
    return this.lock.run(true, async () => {
      const out: TokenMatrix[] = [];
      for (let at = 0; at < texts.length; at += this.batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(at, at + this.batchSize).map(nonEmpty);
        const inputs = this.tokenize(batch);
        const { last_hidden_state } = (await this.extractor.model(inputs)) as { last_hidden_state: Tensor };
        out.push(...toTokenMatrices(last_hidden_state, inputs.attention_mask));
      }
      signal?.throwIfAborted();
      return out;
    });
  }

  /** Releases the inference session. The instance must not be used afterwards. */
  async dispose(): Promise<void> {
    await this.lock.idle();
    await this.extractor.dispose();
  }
}

/** Convenience for `TransformersEmbedder.load`. */
export function loadEmbedder(overrides?: Partial<EmbedderSettings>, folder?: ModelFolder): Promise<TransformersEmbedder> {
  return TransformersEmbedder.load(overrides, folder);
}

/**
 * Points transformers.js at the app's own files only. `useBrowserCache` is off because the Cache
 * API would keep serving an old model under the same URL after a rebuild, while the identity is
 * read from the fresh manifest; HTTP caching with revalidation is used instead.
 */
export function configureEnvironment(settings: EmbedderSettings, support: Readonly<ModelRuntimeSupport>): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  pointAtModelBase(settings.modelBase);
  if (!support.node) {
    env.useBrowserCache = false;
    // transformers.js imports `onnxruntime-web/webgpu`, whose runtime is the asyncify build. The
    // explicit file URLs replace its default (a CDN URL). The wasm cache is off because it
    // re-imports the runtime from a blob: URL, which the app's CSP (script-src 'self') forbids.
    env.useWasmCache = false;
    // The ONNX file of a folder without manifest was already downloaded to hash it: serve it from memory.
    env.fetch = prefetchingFetch(globalThis.fetch.bind(globalThis));
    const wasm = env.backends.onnx.wasm;
    if (wasm) {
      wasm.wasmPaths = { mjs: `${settings.wasmPaths}${ORT_WASM_FILES[0]}`, wasm: `${settings.wasmPaths}${ORT_WASM_FILES[1]}` };
      wasm.numThreads = wasmThreads();
    }
  }
}

/**
 * Where transformers.js reads model files: `modelBase` itself, except that it takes an http(s) URL
 * as its "local" path for the ONNX file but not when it probes whether a tokenizer file exists
 * (that probe skips local paths that are URLs, so an absolute base, which `createInPageEngine`
 * always passes, loaded no tokenizer: "this.tokenizer is not a function"). A base on the worker's
 * own origin is therefore given as its path; one on another origin (a CDN the app names) as the
 * remote host, read as `<base><model>/<file>`, never a model hub.
 */
function pointAtModelBase(modelBase: string): void {
  const here = (globalThis as { location?: { href: string } }).location?.href;
  const url = here && URL.canParse(modelBase, here) ? new URL(modelBase, here) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    env.localModelPath = modelBase; // Node: a folder path
  } else if (url.origin === new URL(here!).origin) {
    env.localModelPath = url.pathname;
  } else {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = url.href;
    env.remotePathTemplate = '{model}/';
  }
}

/**
 * A static model (a lookup table and a mean: `npm run models` writes "static embedding" in its
 * manifest's format) gains nothing from inference threads, and they cost it its load where nested
 * workers are fragile: WebKitGTK refused the thread pool's pthread_create on 2 of 3 first opens
 * ("Can't initialize onnxruntime"), after which onnxruntime-web cannot be initialised again.
 */
function useOneThreadFor(folder: ModelFolder, support: Readonly<ModelRuntimeSupport>): void {
  const wasm = env.backends.onnx.wasm;
  if (!support.node && wasm && isStaticModel(folder)) wasm.numThreads = 1;
}

export const isStaticModel = (folder: ModelFolder): boolean => /static embedding/.test(folder.manifest?.format ?? '');

/** The inference threads onnxruntime-web was (or will be) initialised with in this worker. */
export const ortThreads = (): number => env.backends.onnx.wasm?.numThreads ?? wasmThreads();

/** Indexes of `texts`, shortest first (a stable proxy for token count), for length-bucketed batches. */
export function lengthOrder(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length || a - b);
}

