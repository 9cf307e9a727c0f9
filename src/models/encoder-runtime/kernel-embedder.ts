/**
 * The engine's `Embedder` on our own encoder runtime: the model folder's tokenizer (transformers.js,
 * truncating exactly as the other runtime does: truncate.ts), then our WASM kernels over the int8
 * weight file, in encoder workers where the host has them (encoder-pool.ts) or in this thread.
 *
 * Texts are tokenised first and batched by token count (length-sorted, at most `DOCUMENT_BATCH_TOKENS`
 * per document batch), so a batch holds many short texts or a few long ones and nothing is padded;
 * several batches run at once, one per worker, queries before waiting documents.
 */
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Embedder } from '../../engine/contracts.ts';
import { yieldToEventLoop } from '../../util/abort.ts';
import type { ModelManifest } from '../manifest.ts';
import type { ModelFolder } from '../model-folder.ts';
import { sha256Hex } from '../model-folder.ts';
import type { EmbedDevice } from '../progress.ts';
import { withPrefix, type EncoderRecipe } from '../recipe.ts';
import type { TokenMatrix } from '../token-vectors.ts';
import { encodeTruncated, nonEmpty, tokenLimit } from '../truncate.ts';
import { readModelFile } from '../tokenizer-loader.ts';
import type { BatchEncoder } from './batch-encoder.ts';
import { decodeWeights, WEIGHTS_FILE, type EncoderWeights } from './weights-file.ts';

/**
 * Tokens per document batch: ≈ 4 passages of 1,000 characters, ≈ 0.15–0.3 s on one core, so a
 * query that arrives while every worker embeds documents waits at most about that long.
 */
export const DOCUMENT_BATCH_TOKENS = 1024;

export class KernelEmbedder implements Embedder {
  readonly normalized = true;
  /** Always WASM (our kernels); the GPU is transformers.js's. */
  readonly device: EmbedDevice = 'wasm';

  constructor(
    readonly identity: string,
    readonly dimension: number,
    readonly folder: ModelFolder,
    private readonly tokenizer: PreTrainedTokenizer,
    readonly backend: BatchEncoder,
  ) {}

  get manifest(): ModelManifest | undefined {
    return this.folder.manifest;
  }

  get recipe(): EncoderRecipe {
    return this.folder.recipe;
  }

  /** Batches in flight at once: one per encoder worker. */
  parallelism(): number {
    return this.backend.parallelism;
  }

  /** The runtime, for logs and status: e.g. `rcp-kernels (WASM relaxed SIMD, 2 workers)`. */
  get runtime(): string {
    return `rcp-kernels (${this.backend.description})`;
  }

  /** Unit vectors, pooled as the model's recipe says (see the file comment for batching). */
  async embed(texts: string[], kind: 'query' | 'document' = 'document', signal?: AbortSignal): Promise<Float32Array[]> {
    const ids = this.tokenIds(withPrefix(this.recipe, texts, kind));
    const out = new Array<Float32Array>(ids.length);
    await this.runBatches(ids, kind === 'query' ? this.backend.maxTokens : DOCUMENT_BATCH_TOKENS, kind === 'query', signal, async (batch, urgent) => {
      const vectors = await this.backend.run({ ids: batch.map((i) => ids[i]), output: 'pooled', urgent });
      batch.forEach((i, j) => (out[i] = vectors[j]));
    });
    return out;
  }

  /** Per-token unit vectors (the last hidden state's rows, special tokens included), for `embed/multi` and MaxSim. */
  async tokenVectors(texts: string[], signal?: AbortSignal): Promise<TokenMatrix[]> {
    const ids = this.tokenIds(texts);
    const out = new Array<TokenMatrix>(ids.length);
    await this.runBatches(ids, this.backend.maxTokens, true, signal, async (batch, urgent) => {
      const rows = await this.backend.run({ ids: batch.map((i) => ids[i]), output: 'tokens', urgent });
      batch.forEach((i, j) => (out[i] = unitRows(rows[j], this.dimension)));
    });
    return out;
  }

  async dispose(): Promise<void> {
    await this.backend.dispose();
  }

  /**
   * Word-piece ids per text, truncated to the model's length keeping the final [SEP]: the same
   * function and limit as the transformers.js runtime (truncate.ts), so both see the same tokens.
   */
  tokenIds(texts: readonly string[]): Int32Array[] {
    const limit = tokenLimit(this.recipe.maxLength, this.tokenizer);
    return texts.map((t) => Int32Array.from(encodeTruncated(this.tokenizer, nonEmpty(t), limit).input_ids));
  }

  /** `tokenBatches` of the texts, `parallelism` of them in flight. */
  private async runBatches(ids: Int32Array[], budget: number, urgent: boolean, signal: AbortSignal | undefined, run: (batch: number[], urgent: boolean) => Promise<void>): Promise<void> {
    const batches = tokenBatches(ids.map((s) => s.length), budget, this.parallelism());
    let next = 0;
    const lane = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        // In this thread the kernels run synchronously: let waiting requests and messages in first.
        if (!urgent && this.backend.parallelism === 1) await yieldToEventLoop();
        signal?.throwIfAborted();
        await run(batch, urgent);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.backend.parallelism, batches.length) }, lane));
    signal?.throwIfAborted();
  }
}

/**
 * The texts (by index) in length-sorted batches of at most `budget` tokens (a longer text alone).
 * The tokens are shared about equally between as many batches as the budget needs, rounded up to a
 * whole number per worker, so the workers finish a call together: filled to the budget one after another,
 * 8 passages of ≈ 190 tokens made 5 + 3, and one of two workers idled for 40% of every call.
 */
export function tokenBatches(lengths: readonly number[], budget: number, workers: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const total = lengths.reduce((n, l) => n + l, 0);
  const rounds = Math.ceil(Math.ceil(total / budget) / workers);
  const count = Math.min(lengths.length, Math.max(1, rounds) * workers);
  const share = total / count;
  const batches: number[][] = [];
  let current: number[] = [];
  let tokens = 0;
  for (const i of order) {
    const n = lengths[i];
    // Close the batch where the next text would take it past the budget, or past its share by more
    // than half of that text (the last batch takes what is left).
    if (current.length && (tokens + n > budget || (batches.length < count - 1 && tokens + n / 2 > share))) {
      batches.push(current);
      current = [];
      tokens = 0;
    }
    current.push(i);
    tokens += n;
  }
  if (current.length) batches.push(current);
  return batches;
}

/** Rows of a [n × d] matrix scaled to unit length; all-zero rows dropped (as toTokenMatrices does). */
function unitRows(data: Float32Array, d: number): TokenMatrix {
  const rows: Float32Array[] = [];
  for (let r = 0; r * d < data.length; r++) {
    const row = data.slice(r * d, (r + 1) * d);
    let n = 0;
    for (const v of row) n += v * v;
    if (!(n > 0) || !Number.isFinite(n)) continue;
    n = Math.sqrt(n);
    for (let j = 0; j < d; j++) row[j] /= n;
    rows.push(row);
  }
  const out = new Float32Array(rows.length * d);
  rows.forEach((r, i) => out.set(r, i * d));
  return { rows: rows.length, dimension: d, data: out };
}

/** The int8 weight file of a folder, checked against the manifest's checksum (the same build as the identity's ONNX file). */
export async function readWeightsFile(base: string, folder: ModelFolder, node: boolean): Promise<{ buffer: ArrayBuffer; weights: EncoderWeights }> {
  const path = `${base}${folder.name}/${WEIGHTS_FILE.q8}`;
  const want = folder.manifest?.files[WEIGHTS_FILE.q8];
  if (!want) throw new Error(`${folder.name}: the manifest lists no ${WEIGHTS_FILE.q8}`);
  const buffer = await readModelFile(path, node);
  const got = await sha256Hex(new Uint8Array(buffer));
  if (got !== want) throw new Error(`${path}: sha256 ${got.slice(0, 12)}… is not the manifest's ${want.slice(0, 12)}… (a different build)`);
  return { buffer, weights: decodeWeights(buffer) };
}
