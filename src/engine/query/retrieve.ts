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
import type { FilterFieldType, Hit, RetrieveResult, Unit } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import { readOncePerQuery, type DocumentReader } from '../state/text-cache.ts';
import type { RetrievePlan } from './plan.ts';
import { cursorNotFound, decodeCursor, encodeCursor, paramsHash } from './cursor.ts';
import { candidateVector, cosine, missingVectors } from '../index/dense.ts';
import { DocumentRewritten, hitId, loadTexts, packBudget, toHit } from './hits.ts';
import { jaccard, mmrOrder } from './mmr.ts';
import { suspectInjection } from './injection.ts';
import { denseModel, recallVariants, type RecallDeps } from './recall.ts';
import { queryVariants, rewriteQuery } from './transform.ts';
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
}

export interface RetrieveContext {
  signal?: AbortSignal;
  /** Called as stages start (§9 progress): 'recall', 'rerank', 'mmr', 'pack'. */
  onStage?(stage: string, progress: number): void;
}

/** Query variants `rewrite: "multi-query"` retrieves with. */
const MULTI_QUERY_VARIANTS = 3;

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

/**
 * §4.6: scores must be monotonic with rank within a response. Only reorderings that do not follow
 * the score (MMR; reranked hits followed by unreranked ones) break it: there each hit's score
 * becomes the lower of its own and the one above it — still a value of the same scoring function,
 * so `scoreScale`/`scoreFloor` stay true — and the unchanged relevance is kept in `scores.relevance`.
 */
function makeMonotonic(list: Candidate[]): void {
  for (let i = 1; i < list.length; i++) {
    const above = list[i - 1].score;
    if (list[i].score > above) {
      list[i].scores.relevance = list[i].score;
      list[i].score = above;
    }
  }
}

/** σ(x) = 1 / (1 + e^−x): monotone, in [0, 1]. */
const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

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
  // A request that names no mode is served in the planned default only once dense can serve it:
  // while the model's weights still load (a fresh tab over an embedded index) or chunks still wait
  // for vectors (background embedding after an import or a model switch), it is served sparse, so
  // first results never wait on the encoder and nothing unembedded is ranked down.
  const downgradable = plan.modeDefaulted && plan.mode !== 'sparse' && deps.embedder !== undefined;
  const loading = downgradable && deps.embedder?.ready?.() === false;
  // A cold start publishes the view before the vectors are read: whatever touches them waits here
  // (not a default-mode request served sparse because the model still loads).
  const wantsVectors = (loading ? 'sparse' : plan.mode) !== 'sparse' || params.includeVectors === true || !!params.mmr;
  if (deps.embedder && wantsVectors && deps.vectorsLoaded) {
    await deps.vectorsLoaded();
    checkAborted(signal);
  }

  const unitOut: Unit = params.unit ?? 'chunk';
  const unit = unitOut === 'document' ? 'document' : 'chunk';
  const pending = downgradable && !loading && deps.embedder ? missingVectors(view, denseModel(deps.embedder)) : 0;
  const mode = pending > 0 || loading ? 'sparse' : plan.mode;
  if (loading) notes.push(`default mode ${plan.mode} served as sparse: the dense model is still loading`);
  if (pending > 0) notes.push(`default mode ${plan.mode} served as sparse: ${pending} chunks still wait for vectors`);
  const text = contentText(params.query);
  const filter = params.filter ? compileFilter(params.filter, deps.fields) : undefined;
  const session = params.sessionId !== undefined ? deps.sessions.begin(params.sessionId, cursor?.session) : undefined;

  // §7.7 `rewrite` (gated on transform.methods): spelling-corrected query, or several variants fused.
  let variants = [text];
  let rewrittenQuery: string | undefined;
  if (params.rewrite === 'rewrite' || params.rewrite === 'multi-query') {
    const tdeps = { analyzer: deps.analyzer, view, texts: deps.texts };
    if (params.rewrite === 'rewrite') variants = [(await rewriteQuery(text, tdeps)).query];
    else variants = (await queryVariants(text, MULTI_QUERY_VARIANTS, tdeps)).queries;
    rewrittenQuery = variants[0];
    if (variants.length > 1) notes.push(`multi-query: ${variants.length} variants fused by RRF`);
    checkAborted(signal);
  }

  ctx.onStage?.('recall', 0);
  const rec = await recallVariants(deps, {
    view,
    text,
    mode,
    unit,
    depth: plan.candidateK,
    accept: filter && ((doc) => filter(doc.meta)),
    exclude: session?.exclude ?? new Set(),
    fusion: params.fusion,
    signal,
  }, variants);
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
    const scores = await reranker.score(variants[0], passages, signal);
    checkAborted(signal);
    pool.forEach((c, i) => {
      c.scores.recall = c.score; // the score it was ranked by before reranking, so a viewer can show what rerank changed
      c.scores.rerank = scores[i];
      c.score = scores[i];
    });
    pool.sort(compareCandidates);
    // The raw reranker score (a logit, a MaxSim sum) has no floor; its logistic does (0), so the
    // advertised scoreFloor stays true with a reranker (§6.1, §16.3). Mapped after sorting on the
    // raw value, so saturation near 1 can only tie neighbours, never reorder them.
    for (const c of pool) c.score = logistic(c.score);
    if (params.recency) applyRecency(pool, params.recency.field, params.recency.halfLifeDays, 0, notes);
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
  makeMonotonic(list);

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
  // Bodies are read for every page: the injection screen needs them even when includeText is false
  // (then a pinned snapshot whose texts are gone is still served, only unscreened).
  const texts = page.length === 0 ? [] : params.includeText !== false
    ? await loadTexts(reader, page, unit)
    : await loadTexts(reader, page, unit).catch((e: unknown) => {
      if (e instanceof DocumentRewritten) return undefined;
      throw e;
    });
  hits.forEach((h, i) => {
    if (params.includeText !== false) h.text = texts![i];
    // §15.2: everything here arrived through index/add, so nothing is vouched for ("untrusted").
    h.trust = texts && suspectInjection(texts[i]) ? { level: 'untrusted', injectionSuspected: true } : { level: 'untrusted' };
  });
  if (params.includeVectors && deps.embedder) {
    const model = denseModel(deps.embedder);
    const encoding = params.encoding ?? 'json';
    hits.forEach((h, i) => {
      const v = candidateVector(page[i], model);
      // §7.3.1: the encoding used is echoed, and `dimension` accompanies every vector.
      if (!v) return;
      h.vector = encodeVectors([v], encoding)[0];
      h.encoding = encoding;
      h.dimension = v.length;
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
  if (rewrittenQuery !== undefined) result.rewrittenQuery = rewrittenQuery;
  if (notes.length > 0) result.usage!.notes = notes;
  if (nextCursor) result.nextCursor = nextCursor;
  return result;
}
