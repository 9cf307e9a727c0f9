import type { Reranker } from '../engine/contracts.ts';
import type { Capabilities, IndexAddResult, IndexDeleteResult, PeerInfo, RetrieveResult, TransformResult } from '../protocol/types.ts';
import { validateIndexAdd, validateIndexDelete, validateTransform } from '../protocol/validate.ts';
import { engineReady, type Backend, type HandlerContext, type HandlerTable, type ServedEngine } from './backend.ts';
import { planRetrieve } from './retrieve-plan.ts';

export interface EngineBackendOptions {
  serverInfo: PeerInfo;
  /** Resolves to the opened engine; rejects (→ -32010) if storage could not be opened. */
  engine: Promise<ServedEngine>;
  /**
   * Capabilities known before the engine opens (from configuration, not data). A function is asked
   * at each `initialize`, whose session then keeps that answer (§13.2).
   */
  capabilities: Capabilities | (() => Capabilities);
  /** The engine's rerankers in preference order: a retrieve plan names the one that serves it. */
  rerankers?: readonly Reranker[];
  /** Extra handlers (embed, rerank…) contributed by the models runtime. */
  extraHandlers?: HandlerTable;
  subscribe?: Backend['subscribe'];
  notes?: Backend['notes'];
}

/** Batches larger than this report progress (§9) per slice. */
const PROGRESS_SLICE = 64;

/**
 * Wires the RCP methods `retrieve`, `query/transform`, `index/add` and `index/delete` to the
 * engine. Validation happens here, once, against the session's capabilities (a retrieve becomes a
 * plan); retrieval semantics live in the engine.
 */
export function createEngineBackend(opts: EngineBackendOptions): Backend {
  const ready = engineReady(opts.engine);

  const handlers: HandlerTable = {
    ...opts.extraHandlers,

    async retrieve(raw: unknown, ctx: HandlerContext): Promise<RetrieveResult> {
      const plan = planRetrieve(raw, ctx.caps, opts.rerankers ?? []);
      const engine = await ready();
      // The engine announces every stage itself, recall first.
      const result = await engine.retrieve(plan, { signal: ctx.signal, onStage: (stage, progress) => ctx.progress({ progress, stage, message: stage }) });
      ctx.log('debug', `retrieve: ${result.hits.length} hits`, { latencyMs: result.usage?.latencyMs });
      return result;
    },

    async 'index/add'(raw: unknown, ctx: HandlerContext): Promise<IndexAddResult> {
      const params = validateIndexAdd(raw, ctx.caps);
      const engine = await ready();
      const total = params.documents.length;
      if (total >= PROGRESS_SLICE) ctx.progress({ progress: 0, stage: 'index', message: `indexing ${total} documents` });
      const result = await engine.add(params.documents, {
        chunk: params.chunk,
        contextual: params.contextual,
        idempotencyKey: typeof params._meta?.idempotencyKey === 'string' ? params._meta.idempotencyKey : undefined,
        signal: ctx.signal,
        onProgress: (done, of) => {
          if (of >= PROGRESS_SLICE) ctx.progress({ progress: of === 0 ? 1 : done / of, stage: 'index', message: `indexed ${done}/${of}` });
        },
      });
      ctx.log('info', `index/add: ${total} documents, ${result.chunks} chunks`);
      return result;
    },

    /** §7.8: `_meta.corrections` lists the words `rewrite` corrected, for a "did you mean". */
    async 'query/transform'(raw: unknown, ctx: HandlerContext): Promise<TransformResult> {
      const p = validateTransform(raw, ctx.caps);
      const engine = await ready();
      // Only rewrite and multi-query are ever advertised (the engine's capabilities), so the validator let no other through.
      const { queries, corrections } = await engine.transform(p.query, p.method as 'rewrite' | 'multi-query', p.n);
      return { queries, _meta: { corrections } };
    },

    async 'index/delete'(raw: unknown, ctx: HandlerContext): Promise<IndexDeleteResult> {
      const params = validateIndexDelete(raw);
      const engine = await ready();
      const result = await engine.delete(params.ids, { signal: ctx.signal });
      ctx.log('info', `index/delete: ${result.deleted} removed`);
      return result;
    },
  };

  return {
    serverInfo: opts.serverInfo,
    capabilities: typeof opts.capabilities === 'function' ? opts.capabilities : () => opts.capabilities as Capabilities,
    handlers,
    subscribe: opts.subscribe,
    notes: opts.notes,
  };
}
