/**
 * What one retrieve (src/engine/query/retrieve.ts) carries from stage to stage, and how it starts:
 * the cursor resolved and the index view it reads pinned.
 */
import { contentText } from '../../protocol/content.ts';
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError } from '../../protocol/errors.ts';
import type { FilterFieldType, RetrieveMode, Unit } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import type { Candidate, IndexView } from '../index/view.ts';
import { readOncePerQuery, type DocumentReader } from '../state/text-cache.ts';
import { cursorNotFound, decodeCursor, paramsHash, type CursorState } from './cursor.ts';
import type { Sessions } from './dedup-sessions.ts';
import type { RetrievePlan } from './plan.ts';
import type { RecallDeps } from './recall.ts';

export interface RetrieveDeps extends RecallDeps {
  /** Where hit texts are read (the store, through the engine's TextCache). */
  texts: DocumentReader;
  fields: Record<string, FilterFieldType>;
  sessions: Sessions;
  /** A retained view by version, or undefined when it is gone. */
  viewAt(version: number): IndexView | undefined;
  current(): IndexView;
}

export interface RetrieveContext {
  signal?: AbortSignal;
  /** Called as stages start (§9 progress): 'recall', 'rerank', 'mmr', 'pack'. */
  onStage?(stage: string, progress: number): void;
}

const unavailable = (detail: string): RcpError =>
  new RcpError(ErrorCode.BackendUnavailable, 'indexVersion no longer available', { detail, retryable: false });

function resolveView(deps: RetrieveDeps, params: RetrievePlan['params'], cursorVersion: number | undefined): IndexView {
  if (cursorVersion !== undefined) {
    const v = deps.viewAt(cursorVersion);
    if (!v) throw cursorNotFound(`index version ${cursorVersion} of this cursor is no longer retained`);
    if (params.indexVersion !== undefined && params.indexVersion !== String(cursorVersion)) {
      throw cursorNotFound('cursor belongs to another indexVersion');
    }
    return v;
  }
  if (params.indexVersion === undefined) return deps.current();
  const n = /^\d+$/.test(params.indexVersion) ? Number(params.indexVersion) : NaN;
  const v = Number.isSafeInteger(n) ? deps.viewAt(n) : undefined;
  if (!v) throw unavailable(`index version '${params.indexVersion}' is not retained (current is ${deps.current().version})`);
  return v;
}

/** What one retrieve carries from stage to stage. */
export interface Run {
  readonly deps: RetrieveDeps;
  readonly plan: RetrievePlan;
  readonly params: RetrievePlan['params'];
  readonly ctx: RetrieveContext;
  readonly t0: number;
  /** Degradations and clamps, for `usage.notes`. */
  readonly notes: string[];
  /** Hit texts, each document read at most once per query. */
  readonly reader: DocumentReader;
  readonly hash: string;
  readonly cursor?: CursorState;
  readonly view: IndexView;
  readonly unitOut: Unit;
  readonly unit: 'chunk' | 'document';
  /** The mode served: the plan's, or sparse while dense is not ready for a defaulted mode. */
  mode: RetrieveMode;
  /** The query text(s) recalled: the query, its spelling-corrected form or its variants. */
  variants: string[];
  rewrittenQuery?: string;
  session?: ReturnType<Sessions['begin']>;
  /** Candidates, best first. */
  list: Candidate[];
  /** How many recall returned (`usage.candidates`). */
  candidates: number;
  /** The floor of the scores in `list` (recency decays toward it). */
  floor: number;
  reranked: number;
  /** Where this page starts in `list` (the cursor's offset). */
  offset: number;
  /** The hits of this page, after the budget. */
  page: Candidate[];
  tokens?: number;
}

/** Resolves the cursor and the index view the request reads (current, pinned or the cursor's). */
export function snapshot(deps: RetrieveDeps, plan: RetrievePlan, ctx: RetrieveContext, t0: number): Run {
  const { params } = plan;
  const hash = paramsHash(params);
  const cursor = params.cursor !== undefined ? decodeCursor(params.cursor) : undefined;
  if (cursor && cursor.hash !== hash) throw cursorNotFound('cursor was issued for a different request');
  const unitOut: Unit = params.unit ?? 'chunk';
  return {
    deps, plan, params, ctx, t0, hash, cursor,
    notes: [...plan.notes],
    reader: readOncePerQuery(deps.texts),
    view: resolveView(deps, params, cursor?.version),
    unitOut,
    unit: unitOut === 'document' ? 'document' : 'chunk',
    mode: plan.mode,
    variants: [contentText(params.query)],
    list: [], candidates: 0, floor: 0, reranked: 0, offset: 0, page: [],
  };
}

/**
 * A store read on demand (state/residency.ts): the documents of `cands` — what their hits cite —
 * are read before anything names or cites them. A no-op for any other store.
 */
export async function resident(run: Run, cands: readonly Candidate[]): Promise<void> {
  if (!run.deps.residency || cands.length === 0) return;
  await run.deps.residency.hits(run.view, cands);
  checkAborted(run.ctx.signal);
}
