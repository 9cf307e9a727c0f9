/**
 * Whether our encoder runtime covers a model folder, and loading it: the int8 weight file, the
 * tokenizer, the kernels compiled for the model's sizes, and the encoder workers (or this thread).
 */
import type { ModelFolder } from '../model-folder.ts';
import type { Pooling } from '../recipe.ts';
import { defaultEncoderWorkers, type ModelRuntimeSupport } from '../support.ts';
import { LocalBatchEncoder, type BatchEncoder } from './batch-encoder.ts';
import { bertWeights } from './bert-weights.ts';
import { EncoderPool } from './encoder-pool.ts';
import { fromInlined, fromPage, fromScript, type SpawnEncoder } from './encoder-spawn.ts';
import { loadTokenizer } from '../tokenizer-loader.ts';
import { KernelEmbedder, readWeightsFile } from './kernel-embedder.ts';
import { LOCAL_QUERY_TOKENS, LocalQueries } from './local-queries.ts';
import { encoderKernels } from './kernel-module.ts';
import { timeStep } from '../../util/heartbeat.ts';
import { DEFAULT_MAX_TOKENS } from './wasm-encoder.ts';
import { WEIGHTS_FILE, type EncoderShape } from './weights-file.ts';

/**
 * The encoder's sizes as the folder's config.json states them, or why not: a BERT config, or an
 * XLM-RoBERTa one (multilingual-e5), the same graph but for positions, which XLM-R numbers from
 * pad_token_id + 1: its weight file stores the table from that row on (scripts/models/e5s1.ts), so
 * it holds that many rows fewer than max_position_embeddings.
 */
export function shapeFromConfig(config: Record<string, unknown>): EncoderShape | string {
  const n = (k: string) => (typeof config[k] === 'number' ? (config[k] as number) : NaN);
  const type = config.model_type;
  if (type !== 'bert' && type !== 'xlm-roberta') return `config.json model_type is ${String(type)}, not bert or xlm-roberta`;
  const positionOffset = type === 'xlm-roberta' ? n('pad_token_id') + 1 : 0;
  if (config.hidden_act !== 'gelu') return `hidden_act ${String(config.hidden_act)} (only erf GELU is implemented)`;
  if ((config.position_embedding_type ?? 'absolute') !== 'absolute') return `position_embedding_type ${String(config.position_embedding_type)}`;
  const shape: EncoderShape = {
    layers: n('num_hidden_layers'),
    hidden: n('hidden_size'),
    heads: n('num_attention_heads'),
    intermediate: n('intermediate_size'),
    maxPositions: n('max_position_embeddings') - positionOffset,
    typeVocab: n('type_vocab_size'),
    vocab: n('vocab_size'),
    layerNormEps: n('layer_norm_eps'),
  };
  if (Object.values(shape).some((v) => !(v > 0))) return 'config.json lacks a size';
  if (shape.hidden % 16 || shape.intermediate % 16 || (shape.hidden / shape.heads) % 8) return `sizes ${shape.hidden}/${shape.intermediate}/${shape.heads} heads are not multiples of the kernels' tiles`;
  return shape;
}

/**
 * Why our runtime cannot run this folder, or undefined when it can: it needs the int8 weight file
 * (`npm run models` writes it for the encoders it builds), a BERT config, and WebAssembly SIMD that
 * compiles here (not under a CSP without 'wasm-unsafe-eval', not on a CPU or browser without SIMD).
 */
export async function kernelCoverage(folder: ModelFolder): Promise<string | undefined> {
  if (folder.dtype !== 'q8') return `our kernels run int8 weights and the folder is used as ${folder.dtype}`;
  if (!folder.manifest?.files[WEIGHTS_FILE.q8]) return `the folder has no ${WEIGHTS_FILE.q8} (only models built by npm run models have one)`;
  const shape = shapeFromConfig(folder.config);
  if (typeof shape === 'string') return shape;
  if (!(await encoderKernels(shape))) return "WebAssembly SIMD does not compile here (no SIMD support, or a Content-Security-Policy without 'wasm-unsafe-eval')";
  return undefined;
}

export interface KernelLoadOptions {
  modelBase: string;
  support: Readonly<ModelRuntimeSupport>;
  /** Encoder workers; 0 = this thread. Default: one per core, at most 4, where workers exist. */
  workers?: number;
  /** Told when a crashed encoder worker is replaced. */
  onRestart?: (reason: string) => void;
  /** Told when the workers start another way than from their script URL (encoder-spawn.ts). */
  onFallback?: (reason: string) => void;
}

/** Loads the folder on our runtime (`kernelCoverage` must have said yes); a first inference checks it. */
export async function loadKernelEmbedder(folder: ModelFolder, opts: KernelLoadOptions): Promise<KernelEmbedder> {
  const shape = shapeFromConfig(folder.config);
  if (typeof shape === 'string') throw new Error(shape);
  const kernels = await encoderKernels(shape);
  if (!kernels) throw new Error('WebAssembly SIMD does not compile here');
  const [{ buffer, weights }, tokenizer] = await Promise.all([readWeightsFile(opts.modelBase, folder, opts.support.node), loadTokenizer(folder, opts.modelBase, opts.support.node)]);
  if (JSON.stringify(weights.header.shape) !== JSON.stringify(shape)) throw new Error(`${WEIGHTS_FILE.q8} is for ${JSON.stringify(weights.header.shape)}, config.json says ${JSON.stringify(shape)}`);
  if (folder.dimension !== undefined && folder.dimension !== shape.hidden) throw new Error(`${WEIGHTS_FILE.q8} gives ${shape.hidden}-d vectors, the manifest says ${folder.dimension}`);
  const pooling: Pooling = folder.recipe.pooling;
  const workers = opts.workers ?? defaultEncoderWorkers(opts.support);
  let backend: BatchEncoder;
  if (workers > 0) {
    // Restarts are reported once a pool is up (a first start that fails is retried another way).
    let up = false;
    const start = async (spawn: SpawnEncoder, startedBy?: string): Promise<EncoderPool> => {
      const pool = new EncoderPool({ spawn, size: workers, weights: buffer, kernels, pooling, maxTokens: DEFAULT_MAX_TOKENS, startedBy, onRestart: (r) => up && opts.onRestart?.(r) });
      await pool.ready().catch(async (e: unknown) => {
        await pool.dispose();
        throw e;
      });
      up = true;
      return pool;
    };
    const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
    const page = fromPage();
    const fromItsScript = () =>
      start(fromScript).catch(async (e: unknown) => {
        opts.onFallback?.(`encoder workers did not start from their script (${why(e)}); starting them from the inlined bundle`);
        return start(await fromInlined());
      });
    const pool = await (page === undefined
      ? fromItsScript()
      : start(page, 'the page').catch((e: unknown) => {
          opts.onFallback?.(`the page did not start encoder workers (${why(e)}); starting them from this worker`);
          return fromItsScript();
        }));
    // Short queries also run here, so none waits behind a worker's document batch (local-queries.ts).
    backend = new LocalQueries(pool, await LocalBatchEncoder.create(timeStep('encoder: reading the weights', () => bertWeights(weights)), kernels, pooling, LOCAL_QUERY_TOKENS));
  } else {
    backend = await LocalBatchEncoder.create(bertWeights(weights), kernels, pooling);
  }
  const embedder = new KernelEmbedder(folder.identity, shape.hidden, folder, tokenizer, backend);
  try {
    const [probe] = await embedder.embed(['warm up'], 'query');
    if (probe.length !== shape.hidden || !probe.every(Number.isFinite)) throw new Error('the first inference gave no finite vector');
  } catch (e) {
    await embedder.dispose();
    throw e;
  }
  return embedder;
}
