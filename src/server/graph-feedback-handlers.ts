/**
 * `graph` (§7.9) and `feedback` (§7.16) on the engine (what feedback did is shown and undone by the
 * x-inpage methods feedback, quarantine and release, inpage-handlers.ts). Validation happens here,
 * once, against the session's capabilities; the engine carries out plans.
 */
import type { FeedbackResult, GraphResult } from '../protocol/types.ts';
import { validateFeedback } from '../protocol/validate-feedback.ts';
import { validateGraph } from '../protocol/validate-graph.ts';
import { engineReady, type HandlerTable, type ServedEngine } from './backend.ts';

/** `feedback` writes (a quarantine is a new version): it joins the session's write ordering. */
export const FEEDBACK_WRITES: readonly string[] = Object.freeze(['feedback']);

export interface GraphFeedbackOptions {
  engine: Promise<Pick<ServedEngine, 'graph' | 'feedback'>>;
}

export function createGraphFeedbackHandlers(opts: GraphFeedbackOptions): HandlerTable {
  const ready = engineReady(opts.engine);
  const handlers: HandlerTable = {
    async graph(raw, ctx): Promise<GraphResult> {
      const plan = validateGraph(raw, ctx.caps);
      return (await ready()).graph(plan, { signal: ctx.signal });
    },
    /** §7.16: `accepted` counts what was recorded; `_meta` says which signals named nothing and what was quarantined. */
    async feedback(raw, ctx): Promise<FeedbackResult> {
      const v = validateFeedback(raw);
      const out = await (await ready()).feedback(v, { signal: ctx.signal });
      if (out.quarantined.length) ctx.log('warning', `feedback: quarantined ${out.quarantined.length} document(s)`, { ids: out.quarantined });
      return { accepted: out.accepted, _meta: { unknownHitIds: out.unknown, quarantined: out.quarantined } };
    },
  };
  return handlers;
}
