import { contentText } from '../protocol/content.ts';
import { encodeVectors } from '../protocol/vector-codec.ts';
import type { EmbedResult, MultiEmbedResult, RerankResult, SparseEmbedResult, SparseVector } from '../protocol/types.ts';
import { validateEmbed, validateEmbedMulti, validateEmbedSparse, validateRerank } from '../protocol/validate.ts';
import type { Reranker } from '../engine/contracts.ts';
import { chooseReranker } from '../engine/serving.ts';
import type { HandlerContext, HandlerTable } from './backend.ts';

/** What the model methods need from a loaded encoder (src/models' TransformersEmbedder fits). */
export interface ModelEncoder {
  readonly dimension: number;
  embed(texts: string[], kind: 'query' | 'document', signal?: AbortSignal): Promise<Float32Array[]>;
  tokenVectors(texts: string[], signal?: AbortSignal): Promise<{ rows: number; dimension: number; data: Float32Array }[]>;
}

const nested = (m: { rows: number; dimension: number; data: Float32Array }): number[][] =>
  Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.dimension, (r + 1) * m.dimension)));

/**
 * `embed`, `embed/multi` and `rerank`. `encoder` resolves once the model has loaded; when loading
 * failed it rejects (→ -32010) while the capabilities stay advertised (§13.2). `rerankers` are in
 * preference order: a request without `method` uses the first; `model` picks among same-method ones
 * (the validator has already refused methods and models that are not advertised).
 */
export function createModelHandlers(encoder: () => Promise<ModelEncoder>, rerankers: Reranker | readonly Reranker[]): HandlerTable {
  const list: readonly Reranker[] = Array.isArray(rerankers) ? rerankers : [rerankers as Reranker];
  return {
    async embed(raw: unknown, ctx: HandlerContext): Promise<EmbedResult> {
      const p = validateEmbed(raw, ctx.caps);
      const model = await encoder();
      const vectors = await model.embed(p.inputs.map(contentText), p.kind ?? 'document', ctx.signal);
      // `model` names the encoder that made the vectors (its §15.7 identity), whether or not the request named one.
      return { vectors: encodeVectors(vectors, p.encoding), encoding: p.encoding, dimension: model.dimension, ...(ctx.caps.embed ? { model: ctx.caps.embed.identity } : {}) };
    },

    async 'embed/multi'(raw: unknown, ctx: HandlerContext): Promise<MultiEmbedResult> {
      const p = validateEmbedMulti(raw, ctx.caps);
      const model = await encoder();
      const matrices = await model.tokenVectors(p.inputs.map(contentText), ctx.signal);
      return { matrices: matrices.map(nested), dimension: model.dimension };
    },

    async rerank(raw: unknown, ctx: HandlerContext): Promise<RerankResult> {
      const p = validateRerank(raw, ctx.caps);
      const t0 = performance.now();
      const scores = await chooseReranker(list, p.method, p.model, 'method').score(contentText(p.query), p.passages, ctx.signal);
      const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b).slice(0, p.topN ?? scores.length);
      const usage = { reranked: scores.length, latencyMs: Math.round((performance.now() - t0) * 100) / 100 };
      // `results` is the legacy shape reference clients still read (shared/rcp/README.md).
      return { scores, order, results: order.map((index) => ({ index, score: scores[index] })), usage };
    },
  };
}

/** What `embed/sparse` needs from a learned-sparse encoder (src/models' LazySparseEncoder fits). */
export interface SparseModelEncoder {
  encode(texts: readonly string[], kind: 'query' | 'document', signal?: AbortSignal): Promise<SparseVector[]>;
}

/**
 * `embed/sparse` (§7.4): one `{indices, values}` per text — vocabulary ids and learned weights.
 * The encoder loads its weights on the first call; a failed load rejects (→ -32010, retryable).
 */
export function createSparseEmbedHandler(encoder: SparseModelEncoder): HandlerTable {
  return {
    async 'embed/sparse'(raw: unknown, ctx: HandlerContext): Promise<SparseEmbedResult> {
      const p = validateEmbedSparse(raw, ctx.caps);
      return { sparse: await encoder.encode(p.texts, p.kind ?? 'document', ctx.signal) };
    },
  };
}
