/**
 * The learned-sparse encoder behind RCP `embed/sparse` (§7.4): a SPLADE model folder built by
 * `npm run models` (scripts/models/splade.ts) run on transformers.js, local files only, with the
 * embedder's device fallback (WebGPU → WASM). Its graph outputs `sparse_embedding` [batch, vocab]
 * — max over the tokens of log(1 + ReLU(MLM logit)) — and a text's vector is that row's nonzero
 * entries: `indices` are WordPiece vocabulary ids (ascending), `values` their learned weights.
 *
 * Batches are bounded by padded tokens, not texts: the graph holds a [tokens, vocab] float32
 * matrix of logits (30,522 columns: 122 KB per token), so 512 tokens ≈ 62 MB per such tensor.
 */
import { AutoModel, AutoTokenizer, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { loadOnFirstDevice, safeEmitter } from './devices.ts';
import { configureEnvironment } from './embedder.ts';
import type { ModelFolder } from './model-folder.ts';
import { PriorityLock } from './priority-lock.ts';
import type { EmbedDevice } from './progress.ts';
import { defaultEmbedderSettings, type EmbedderSettings } from './settings.ts';
import { detectModelSupport } from './support.ts';
import { encodeTruncated, padEncoded, type Encoded } from './truncate.ts';
import { yieldToEventLoop } from '../util/abort.ts';

/** The graph output scripts/models/splade-head.ts writes. */
export const SPARSE_OUTPUT = 'sparse_embedding';
/** Padded tokens per inference call (see the header). */
export const SPARSE_TOKEN_BUDGET = 512;
/** Truncation when the folder's manifest names none (what SPLADE-tiny's packager uses). */
const DEFAULT_MAX_LENGTH = 256;

/** One text's learned-sparse vector: vocabulary ids (ascending) and their weights (all > 0). */
export interface SparseWeights {
  indices: number[];
  values: number[];
}

export class SparseEncoder {
  /** One inference at a time; query batches first. */
  private readonly lock = new PriorityLock();

  private constructor(
    readonly identity: string,
    readonly vocabulary: number,
    readonly device: EmbedDevice,
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    private readonly maxLength: number,
  ) {}

  /** Loads `folder` (resolved by the caller) with the runtime's settings; rejects when no device can run it. */
  static async load(overrides: Partial<EmbedderSettings>, folder: ModelFolder): Promise<SparseEncoder> {
    const support = await detectModelSupport();
    const settings: EmbedderSettings = { ...defaultEmbedderSettings(support), ...overrides, model: folder.name };
    configureEnvironment(settings, support);
    const emit = safeEmitter(settings.onProgress);
    const maxLength = folder.recipe.maxLength ?? DEFAULT_MAX_LENGTH;
    const tokenizer = await AutoTokenizer.from_pretrained(folder.name, { progress_callback: emit });
    const vocabulary = folder.manifest?.vocabularySize ?? folder.dimension ?? 0;
    const { value: model, device } = await loadOnFirstDevice(folder.name, settings, support, emit, async (device) => {
      let model: PreTrainedModel | undefined;
      try {
        model = await AutoModel.from_pretrained(folder.name, { device, dtype: folder.dtype, progress_callback: emit });
        // The first inference is where WebGPU kernels fail; it also checks the output is what we parse.
        const probe = await infer(tokenizer, model, [encodeTruncated(tokenizer, 'warm up', maxLength)]);
        if (probe.dims.length !== 2 || (vocabulary && probe.dims[1] !== vocabulary)) throw new Error(`${SPARSE_OUTPUT} has shape [${probe.dims.join(', ')}], expected [batch, ${vocabulary || 'vocabulary'}]`);
        return model;
      } catch (e) {
        await model?.dispose().catch(() => undefined);
        throw e;
      }
    });
    return new SparseEncoder(folder.identity, vocabulary, device, tokenizer, model, maxLength);
  }

  /**
   * One sparse vector per text. This model encodes queries and documents alike (`kind` only
   * orders the work: query batches overtake waiting document batches). A text with no word
   * pieces (empty, whitespace, only control characters) has no terms: its vector is empty.
   */
  async encode(texts: readonly string[], kind: 'query' | 'document' = 'document', signal?: AbortSignal): Promise<SparseWeights[]> {
    const encoded = texts.map((t) => encodeTruncated(this.tokenizer, t, this.maxLength));
    const out: SparseWeights[] = texts.map(() => ({ indices: [], values: [] }));
    const special = this.tokenizer.all_special_ids;
    const order = encoded
      .map((e, i) => ({ i, n: e.input_ids.length, words: e.input_ids.some((id) => !special.includes(id)) }))
      .filter((x) => x.words)
      .sort((a, b) => a.n - b.n || a.i - b.i);
    for (let at = 0; at < order.length; ) {
      // Sorted by length: the batch's width is its last text's, so grow it while the padded size fits.
      let end = at + 1;
      while (end < order.length && (end - at + 1) * order[end].n <= SPARSE_TOKEN_BUDGET) end++;
      const ids = order.slice(at, end).map((x) => x.i);
      at = end;
      if (kind === 'document') await yieldToEventLoop();
      signal?.throwIfAborted();
      const rows = await this.lock.run(kind === 'query', async () => sparseRows(await infer(this.tokenizer, this.model, ids.map((i) => encoded[i]))));
      ids.forEach((i, j) => (out[i] = rows[j]));
    }
    signal?.throwIfAborted();
    return out;
  }

  async dispose(): Promise<void> {
    await this.lock.idle();
    await this.model.dispose();
  }
}

async function infer(tokenizer: PreTrainedTokenizer, model: PreTrainedModel, encoded: readonly Encoded[]): Promise<Tensor> {
  const outputs = (await model(padEncoded(tokenizer, encoded))) as Record<string, Tensor | undefined>;
  const sparse = outputs[SPARSE_OUTPUT];
  if (!sparse || !(sparse.data instanceof Float32Array)) throw new Error(`the model has no float32 ${SPARSE_OUTPUT} output (outputs: ${Object.keys(outputs).join(', ')})`);
  return sparse;
}

/** The nonzero, finite entries of each row. */
export function sparseRows(t: Tensor): SparseWeights[] {
  const [batch, width] = t.dims;
  const data = t.data as Float32Array;
  return Array.from({ length: batch }, (_, r) => {
    const indices: number[] = [];
    const values: number[] = [];
    for (let j = 0, at = r * width; j < width; j++, at++) {
      const v = data[at];
      if (v > 0 && Number.isFinite(v)) indices.push(j), values.push(v);
    }
    return { indices, values };
  });
}
