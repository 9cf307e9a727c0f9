/**
 * A cross-encoder reranker (§7.6 method `cross-encoder`) on transformers.js: any
 * sequence-classification model folder in the transformers.js layout (e.g. a download of
 * Xenova/ms-marco-MiniLM-L-6-v2) scores each (query, passage) pair jointly; the score is the
 * relevance logit (the single logit of a one-label head, the last label's logit otherwise).
 * Higher is better; no fixed range. Local files only, same device fallback as the embedder.
 */
import { AutoModelForSequenceClassification, AutoTokenizer, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import type { Reranker } from '../engine/contracts.ts';
import { loadOnFirstDevice, safeEmitter } from './devices.ts';
import { configureEnvironment } from './embedder.ts';
import { forgetPrefetched, resolveModelFolder, type ModelFolder } from './model-folder.ts';
import type { EmbedDevice } from './progress.ts';
import { defaultEmbedderSettings, type EmbedderSettings } from './settings.ts';
import { detectModelSupport } from './support.ts';
import { SerialQueue } from '../util/serial-queue.ts';

/** Pairs per inference call: bounds padding waste (pairs are longer than queries). */
export const CROSS_ENCODER_BATCH = 16;

export class CrossEncoderReranker implements Reranker {
  readonly method = 'cross-encoder' as const;
  private readonly calls = new SerialQueue();

  private constructor(
    /** `<folder>@sha256:<12 hex>` of the ONNX file in use (§15.7). */
    readonly identity: string,
    readonly device: EmbedDevice,
    readonly folder: ModelFolder,
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    private readonly batchSize: number,
  ) {}

  /** Loads `settings.model` as a cross-encoder. Rejects when the folder is missing or no device can run it. */
  static async load(overrides: Partial<EmbedderSettings> = {}, folder?: ModelFolder): Promise<CrossEncoderReranker> {
    const support = await detectModelSupport();
    const settings: EmbedderSettings = { ...defaultEmbedderSettings(support), batchSize: CROSS_ENCODER_BATCH, ...overrides };
    configureEnvironment(settings, support);
    const resolved = folder ?? (await resolveModelFolder(settings.modelBase, settings.model, settings.dtype, support.node));
    const emit = safeEmitter(settings.onProgress);
    const tokenizer = await AutoTokenizer.from_pretrained(settings.model, { progress_callback: emit }).catch((e: unknown) => {
      forgetPrefetched(settings.modelBase, resolved);
      throw e;
    });
    const { value: model, device } = await loadOnFirstDevice(settings.model, settings, support, emit, async (device) => {
      let model: PreTrainedModel | undefined;
      try {
        model = await AutoModelForSequenceClassification.from_pretrained(settings.model, { device, dtype: resolved.dtype, progress_callback: emit });
        const [probe] = await runPairs(tokenizer, model, 'warm up', ['warm up']);
        if (!Number.isFinite(probe)) throw new Error(`cross-encoder gave a non-finite score on ${device}`);
        return model;
      } catch (e) {
        await model?.dispose().catch(() => undefined);
        throw e;
      }
    }).finally(() => forgetPrefetched(settings.modelBase, resolved));
    return new CrossEncoderReranker(resolved.identity, device, resolved, tokenizer, model, Math.max(1, settings.batchSize));
  }

  /** One relevance logit per passage, in passage order. */
  score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    return this.calls.run(async () => {
      const out: number[] = [];
      for (let at = 0; at < passages.length; at += this.batchSize) {
        signal?.throwIfAborted();
        out.push(...(await runPairs(this.tokenizer, this.model, query, passages.slice(at, at + this.batchSize))));
      }
      signal?.throwIfAborted();
      return out;
    });
  }

  async dispose(): Promise<void> {
    await this.calls.idle();
    await this.model.dispose();
  }
}

/** Scores (query, passage) pairs; truncation keeps each pair within the model's max length. */
async function runPairs(tokenizer: PreTrainedTokenizer, model: PreTrainedModel, query: string, passages: string[]): Promise<number[]> {
  if (passages.length === 0) return [];
  const inputs = tokenizer(
    passages.map(() => query || ' '),
    { text_pair: passages.map((p) => p || ' '), padding: true, truncation: true },
  );
  const { logits } = (await model(inputs)) as { logits: Tensor };
  const [batch, labels] = logits.dims;
  const data = logits.data as Float32Array;
  return Array.from({ length: batch }, (_, i) => {
    const v = data[i * labels + labels - 1];
    return Number.isFinite(v) ? v : -Number.MAX_VALUE; // JSON has no -Infinity
  });
}
