/**
 * The retrieve pipeline (§7.7): resolve snapshot → recall (filter inside) → recency → rerank →
 * minScore → MMR → session dedup → page (cursor) → token budget → hits. Deterministic: every
 * ordering is total (score, then document id, then chunk index), so `seed` needs no randomness.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { contentText } from '../../protocol/content.ts';
import { toEpochMs } from '../../protocol/dates.ts';
import { RcpError } from '../../protocol/errors.ts';
import { compileFilter } from './filter-eval.ts';
import { encodeVectors } from '../../protocol/vector-codec.ts';
import type { FilterFieldType, Hit, RetrieveMode, RetrieveResult, Unit } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import { readOncePerQuery, type DocumentReader } from '../state/text-cache.ts';
import type { RetrievePlan } from './plan.ts';
import { cursorNotFound, decodeCursor, encodeCursor, paramsHash } from './cursor.ts';
import { candidateVector, cosine } from '../index/dense.ts';
import { hitId, loadTexts, packBudget, toHit } from './hits.ts';
import { jaccard, mmrOrder } from './mmr.ts';
import { denseModel, recall, type RecallDeps } from './recall.ts';
import type { Sessions } from './dedup-sessions.ts';
import { compareCandidates, type Candidate, type IndexView } from '../index/view.ts';

export interface RetrieveDeps extends RecallDeps {
  /** Where hit texts are read (the store, through the engine's TextCache). */
  texts: DocumentReader;
  fields: Record<string, FilterFieldType>;
  sessions: Sessions;
  /** A retained view by version, or undefined when it is gone. */
  viewAt(version: number): IndexView | undefined;
  current(): IndexView;
  defaultMode: RetrieveMode;
}

export interface RetrieveContext {
  signal?: AbortSignal;
  /** Called as stages start (§9 progress): 'recall', 'rerank', 'mmr', 'pack'. */
  onStage?(stage: string, progress: number): void;
}

/** MMR reorders at most this many leading candidates (O(n²) similarities). */
const MMR_POOL = 200;

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

/** Recency multiplier relative to the newest dated candidate, mapped around the stage floor. */
function applyRecency(cands: Candidate[], field: string, halfLifeDays: number, floor: number | undefined, notes: string[]): void {
  const dates = cands.map((c) => toEpochMs(c.doc.meta[field]));
  const ref = Math.max(...dates.map((d) => d ?? -Infinity));
  if (!Number.isFinite(ref)) {
    notes.push(`recency: no candidate has a date in '${field}'; not applied`);
    return;
  }
  let undated = 0;
  const hl = halfLifeDays * 86_400_000;
  cands.forEach((c, i) => {
    const t = dates[i];
    if (t === undefined) return void undated++;
    const m = Math.pow(2, -(ref - t) / hl);
    const decayed = floor !== undefined ? floor + (c.score - floor) * m : c.score >= 0 ? c.score * m : c.score / m;
    // A negative score divided by a decay that underflowed to 0 must stay finite and ordered (§4.6).
    c.score = Math.max(-Number.MAX_VALUE, Number.isNaN(decayed) ? -Number.MAX_VALUE : decayed);
  });
  if (undated > 0) notes.push(`recency: ${undated} candidates without a date in '${field}' were not decayed`);
  cands.sort(compareCandidates);
}

/** Runs one retrieve against the engine state, as planned (validated, gated and clamped) by the caller. */
export async function runRetrieve(deps: RetrieveDeps, plan: RetrievePlan, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
  const t0 = performance.now();
  const { signal } = ctx;
  checkAborted(signal);
  const { params, k } = plan;
  const notes: string[] = [...plan.notes];
  const reader = readOncePerQuery(deps.texts);
  const hash = paramsHash(params);
  const cursor = params.cursor !== undefined ? decodeCursor(params.cursor) : undefined;
  if (cursor && cursor.hash !== hash) throw cursorNotFound('cursor was issued for a different request');
  const view = resolveView(deps, params, cursor?.version);

  const unitOut: Unit = params.unit ?? 'chunk';
  const unit = unitOut === 'document' ? 'document' : 'chunk';
  const mode = params.mode ?? deps.defaultMode;
  const text = contentText(params.query);
  const filter = params.filter ? compileFilter(params.filter, deps.fields) : undefined;
  const session = params.sessionId !== undefined ? deps.sessions.begin(params.sessionId, cursor?.session) : undefined;

  ctx.onStage?.('recall', 0);
  const rec = await recall(deps, {
    view,
    text,
    mode,
    unit,
    depth: plan.candidateK,
    accept: filter && ((doc) => filter(doc.meta)),
    exclude: session?.exclude ?? new Set(),
    fusion: params.fusion,
    signal,
  });
  notes.push(...rec.notes);
  checkAborted(signal);
  let list = rec.candidates;
  const candidates = list.length;
  if (params.recency) applyRecency(list, params.recency.field, params.recency.halfLifeDays, rec.floor, notes);

  let reranked = 0;
  if (plan.rerank) {
    const { reranker, topN } = plan.rerank;
    ctx.onStage?.('rerank', 0.5);
    const pool = list.slice(0, topN);
    const texts = await loadTexts(reader, pool, 'chunk');
    checkAborted(signal);
    const passages = pool.map((c, i) => (c.seg.lex.contexts[c.local] ? `${c.seg.lex.contexts[c.local]}\n${texts[i]}` : texts[i]));
    const scores = await reranker.score(text, passages, signal);
    checkAborted(signal);
    pool.forEach((c, i) => {
      c.scores.rerank = scores[i];
      c.score = scores[i];
    });
    pool.sort(compareCandidates);
    if (params.recency) applyRecency(pool, params.recency.field, params.recency.halfLifeDays, undefined, notes);
    reranked = pool.length;
    list = pool.length < k ? [...pool, ...list.slice(pool.length, k)] : pool;
  }
  if (params.minScore !== undefined) list = list.filter((c) => c.score >= params.minScore!);

  if (params.mmr && list.length > 1) {
    ctx.onStage?.('mmr', 0.8);
    const pool = list.slice(0, MMR_POOL);
    const model = deps.embedder && denseModel(deps.embedder);
    const vecs = model ? pool.map((c) => candidateVector(c, model)) : [];
    let sim: (i: number, j: number) => number;
    if (model && vecs.every((v) => v !== undefined)) {
      sim = (i, j) => cosine(vecs[i]!, vecs[j]!);
    } else {
      const texts = await loadTexts(reader, pool, 'chunk');
      const sets = texts.map((t) => new Set(deps.analyzer.indexTerms(t)));
      sim = (i, j) => jaccard(sets[i], sets[j]);
    }
    checkAborted(signal);
    const order = mmrOrder(pool.map((c) => c.score), params.mmr.lambda, sim);
    list = [...order.map((i) => pool[i]), ...list.slice(pool.length)];
  }

  ctx.onStage?.('pack', 0.9);
  const offset = cursor?.offset ?? 0;
  let page = list.slice(offset, offset + k);
  let tokens: number | undefined;
  if (params.tokenBudget !== undefined) {
    const packed = packBudget(page, unit, params.tokenBudget);
    if (packed.count === 0 && page.length > 0) notes.push('tokenBudget: the next hit alone exceeds the budget');
    page = page.slice(0, packed.count);
    tokens = packed.tokens;
  }
  const next = offset + page.length;
  const nextCursor =
    next < list.length && page.length > 0
      ? encodeCursor({ version: view.version, offset: next, hash, ...(session ? { session: session.chainStart } : {}) })
      : undefined;

  const hits: Hit[] = page.map((c) => toHit(c, unit, unitOut));
  if (params.includeText !== false && page.length > 0) {
    const texts = await loadTexts(reader, page, unit);
    hits.forEach((h, i) => (h.text = texts[i]));
  }
  if (params.includeVectors && deps.embedder) {
    const model = denseModel(deps.embedder);
    const encoding = params.encoding ?? 'json';
    hits.forEach((h, i) => {
      const v = candidateVector(page[i], model);
      if (v) h.vector = encodeVectors([v], encoding)[0];
    });
  }
  checkAborted(signal);
  if (session && params.sessionId !== undefined) deps.sessions.record(params.sessionId, page.map((c) => hitId(c, unit)), session.seq);

  const result: RetrieveResult = {
    hits,
    indexVersion: String(view.version),
    usage: { candidates, reranked, latencyMs: Math.round((performance.now() - t0) * 100) / 100 },
  };
  if (tokens !== undefined) result.usage!.tokens = tokens;
  if (notes.length > 0) result.usage!.notes = notes;
  if (nextCursor) result.nextCursor = nextCursor;
  return result;
}
