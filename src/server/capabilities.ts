/**
 * The advertised capability set (§6), built in one place from typed parts: each part owns its
 * keys, and a key offered by two parts is a wiring error, not a silent override. The bounds
 * advertised here are the ones the validators and the retrieve plan enforce (validate-methods.ts,
 * retrieve-plan.ts).
 */
import type { EngineCapabilities } from '../engine/capabilities.ts';
import type { Embedder, Reranker } from '../engine/contracts.ts';
import { retrieveServing } from '../engine/serving.ts';
import type { Capabilities } from '../protocol/types.ts';
import { LOG_LEVELS } from '../protocol/enums.ts';

/** What the models serve: the `embed`, `embed/multi`, `embed/sparse` and `rerank` methods. */
export type ModelCapabilityPart = Pick<Capabilities, 'embed' | 'multiVector' | 'sparseEmbed' | 'rerank'>;
/** What every RcpSession serves for every method (§9 progress, §17.1 logs). */
export type SessionCapabilityPart = Pick<Capabilities, 'streaming' | 'log'>;
/** Vendor extensions (§6.2), each under its own `x-<vendor>` key. */
export type ExtensionPart = { [key: `x-${string}`]: unknown };

export interface CapabilityParts {
  /** What the engine serves (src/engine's `engineCapabilities`). */
  engine: EngineCapabilities;
  models?: ModelCapabilityPart;
  session?: SessionCapabilityPart;
  extensions?: readonly ExtensionPart[];
}

/** Texts accepted by one `embed` call (§4.7 advertised bound). */
export const EMBED_BATCH_LIMIT = 256;
/** Passages one `rerank` call accepts, and the most `retrieve` reranks (its `rerank.topN` clamp). */
export const RERANK_MAX_CANDIDATES = 1000;

/** Progress and logs, served by the session layer for every method. */
export const SESSION_CAPABILITIES: SessionCapabilityPart = Object.freeze({ streaming: {}, log: { levels: [...LOG_LEVELS] } });

/** The advertised set; throws when two parts offer the same key. */
export function advertisedCapabilities(parts: CapabilityParts): Capabilities {
  const out: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  const add = (name: string, part: object | undefined): void => {
    for (const [key, value] of Object.entries(part ?? {})) {
      if (value === undefined) continue;
      const first = owner.get(key);
      if (first !== undefined) throw new Error(`capability '${key}' is offered by both ${first} and ${name}`);
      owner.set(key, name);
      out[key] = value;
    }
  };
  add('engine', parts.engine);
  add('models', parts.models);
  add('session', parts.session);
  (parts.extensions ?? []).forEach((x, i) => add(`extension ${i + 1}`, x));
  return out as Capabilities;
}

export interface ModelCapabilityInputs {
  /** The dense encoder (identity and dimension known before its weights load, §13.2). */
  embedder?: Pick<Embedder, 'identity' | 'dimension' | 'normalized'>;
  /** The encoder also gives token vectors (`embed/multi`, `multiVector`). */
  tokenVectors?: boolean;
  /** In preference order: the first one's method is the default `rerank.method`. */
  rerankers?: readonly Pick<Reranker, 'method' | 'identity'>[];
  /** The learned-sparse encoder (`embed/sparse`): identity and vocabulary size, known before its weights load. */
  sparseEncoder?: { identity: string; vocabulary: number };
}

/** `embed` (and `multiVector`) with an encoder, `sparseEmbed` with a sparse encoder, `rerank` with at least one reranker. */
export function modelCapabilities(i: ModelCapabilityInputs): ModelCapabilityPart {
  const part: ModelCapabilityPart = {};
  const e = i.embedder;
  if (e) {
    part.embed = { dimension: e.dimension, identity: e.identity, batchLimit: EMBED_BATCH_LIMIT, normalized: e.normalized, encodings: ['json', 'f32-base64'], modalities: ['text'] };
    if (i.tokenVectors) part.multiVector = { dimension: e.dimension, identity: e.identity, similarity: 'cosine', modalities: ['text'] };
  }
  if (i.sparseEncoder) part.sparseEmbed = { identity: i.sparseEncoder.identity, vocabulary: i.sparseEncoder.vocabulary, batchLimit: EMBED_BATCH_LIMIT };
  const rerankers = i.rerankers ?? [];
  if (rerankers.length > 0) {
    part.rerank = { methods: [...new Set(rerankers.map((r) => r.method))], maxCandidates: RERANK_MAX_CANDIDATES, models: rerankers.map((r) => r.identity) };
  }
  return part;
}

/**
 * The set for a session that starts after the dense model failed to load (a corrupt file, no
 * device): no `embed`/`multiVector`, `retrieve` sparse only (and its default), and `rerank` without
 * the methods that need the failed encoder (`colbert`). Sessions initialized before the failure keep
 * their set and get -32010 per call (§13.2); this one never advertises what it cannot do.
 */
export function withoutDenseModel(caps: Capabilities, encoderMethods: readonly string[] = ['colbert']): Capabilities {
  const out = structuredClone(caps);
  delete out.embed;
  delete out.multiVector;
  if (out.rerank) {
    const methods = out.rerank.methods.filter((m) => !encoderMethods.includes(m));
    if (methods.length) out.rerank = { ...out.rerank, methods };
    else delete out.rerank;
  }
  // The serving policy without an encoder (src/engine/serving.ts): sparse only, and its default.
  if (out.retrieve) {
    delete out.retrieve.fusion;
    Object.assign(out.retrieve, retrieveServing({ dense: false, rerank: out.rerank !== undefined }));
  }
  return out;
}
