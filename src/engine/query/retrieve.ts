/**
 * The retrieve pipeline (§7.7), one function per stage over one `Run`, in this order (`runRetrieve`):
 *
 *   snapshot → serve mode → session → rewrite → typos → recall (filter inside) → recency → rerank → minScore
 *   → MMR → monotonic scores (§4.6) → page (cursor) → token budget → hits → annotations (pages, matches)
 *
 * Deterministic: every ordering is total (score, then document id, then chunk index), so `seed`
 * needs no randomness.
 */
import { unseenScriptNote } from './script-note.ts';
import { ErrorCode } from '../../protocol/codes.ts';
import { contentText } from '../../protocol/content.ts';
import { RcpError } from '../../protocol/errors.ts';
import { compileFilter } from './filter-eval.ts';
import { encodeVectors } from '../../protocol/vector-codec.ts';
import type { FilterFieldType, Hit, RetrieveMode, RetrieveResult, Unit } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import { readOncePerQuery, type DocumentReader } from '../state/text-cache.ts';
import type { RetrievePlan } from './plan.ts';
import { cursorNotFound, decodeCursor, encodeCursor, paramsHash, type CursorState } from './cursor.ts';
import { candidateVector, cosine, denseModel, missingVectors } from '../index/dense.ts';
import { DocumentRewritten, loadTexts, packBudget, toHit } from './hits.ts';
import { hitId } from '../index/hit-id.ts';
import { jaccard, mmrOrder } from './mmr.ts';
import { applyRecency, makeMonotonic } from './score-order.ts';
import { suspectInjection } from './injection.ts';
import { addMatches } from './matches.ts';
import { addPages } from './pages.ts';
import { lazyDense, recallVariants, type RecallDeps } from './recall.ts';
import { queryVariants, rewriteQuery } from './transform.ts';
import { correctTypos, typoNote } from './typos.ts';
import type { Sessions } from './dedup-sessions.ts';
import { compareCandidates, type Candidate, type DocEntry, type IndexView } from '../index/view.ts';

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

/** σ(x) = 1 / (1 + e^−x): monotone, in [0, 1]. */
const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/** What one retrieve carries from stage to stage. */
interface Run {
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

/** Runs one retrieve against the engine state, as planned (validated, gated and clamped) by the caller. */
export async function runRetrieve(deps: RetrieveDeps, plan: RetrievePlan, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
  const t0 = performance.now();
  checkAborted(ctx.signal);
  // §7.7.1: identical (query, params, seed, indexVersion) must give identical results. Vectors
  // embedded ahead of their segment's commit (state/early-vectors.ts) change between two such
  // requests without changing the index version, so a seeded request ranks by committed vectors only.
  if (plan.params.seed !== undefined && deps.early) deps = { ...deps, early: undefined };
  const run = snapshot(deps, plan, ctx, t0);
  await serveMode(run);
  beginSession(run);
  await rewrite(run);
  await typos(run);
  await recallStage(run);
  if (run.params.recency) recency(run, run.list, run.floor);
  await rerank(run);
  minScore(run);
  await mmr(run);
  makeMonotonic(run.list);
  pageAt(run);
  await resident(run, run.page);
  budget(run);
  return annotate(run, await hits(run));
}

/** The hits' page numbers (paged documents: pages.ts) and, when asked, `x-inpage-matches` (matches.ts). */
function annotate(run: Run, result: RetrieveResult): RetrieveResult {
  addPages(result.hits);
  addMatches(run.deps.analyzer, run.params, result.hits, run.rewrittenQuery);
  return result;
}

/**
 * A store read on demand (state/residency.ts): the documents of `cands` — what their hits cite —
 * are read before anything names or cites them. A no-op for any other store.
 */
async function resident(run: Run, cands: readonly Candidate[]): Promise<void> {
  if (!run.deps.residency || cands.length === 0) return;
  await run.deps.residency.hits(run.view, cands);
  checkAborted(run.ctx.signal);
}

/** Resolves the cursor and the index view the request reads (current, pinned or the cursor's). */
function snapshot(deps: RetrieveDeps, plan: RetrievePlan, ctx: RetrieveContext, t0: number): Run {
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
 * The one run-time downgrade: a request that names no mode is served in the planned default only
 * once dense can serve it. While the model's weights still load (a fresh tab over an embedded index)
 * or chunks still wait for vectors (background embedding after an import or a model switch), it is
 * served sparse, so first results never wait on the encoder and nothing unembedded is ranked down
 * (a request with a `seed` waits for the weights instead: see below).
 */
async function serveMode(run: Run): Promise<void> {
  const { deps, plan, params } = run;
  const downgradable = plan.modeDefaulted && plan.mode !== 'sparse' && deps.embedder !== undefined;
  let loading = downgradable && deps.embedder?.ready?.() === false;
  // A seeded request asks for reproducible results (§7.7.1): the mode it is served in must not
  // depend on whether the weights have finished loading, so it waits for them (sparse only when
  // the model cannot load at all).
  if (loading && params.seed !== undefined && deps.embedder?.whenReady) {
    loading = !(await deps.embedder.whenReady());
    checkAborted(run.ctx.signal);
  }
  // A cold start publishes the view before the vectors are read: whatever touches them waits here
  // (not a default-mode request served sparse because the model still loads).
  const wantsVectors = (loading ? 'sparse' : plan.mode) !== 'sparse' || params.includeVectors === true || !!params.mmr;
  // A store that answers dense recall on demand (a static-model bundle) serves a dense or hybrid
  // recall without the vectors; what needs the vectors themselves still waits for them.
  const onDemand = deps.embedder !== undefined && lazyDense(deps, run.view, denseModel(deps.embedder));
  const needsVectors = onDemand ? params.includeVectors === true || !!params.mmr : wantsVectors;
  // A request that will embed its query starts the model's load before it reads the vectors, so
  // the two overlap (a bundle loads its model only after its first answer otherwise: worker.ts).
  if (!loading && plan.mode !== 'sparse' && deps.embedder?.ready?.() === false) deps.embedder.prepare?.();
  if (deps.embedder && needsVectors && deps.vectorsLoaded) {
    await deps.vectorsLoaded();
    checkAborted(run.ctx.signal);
  }
  const pending = downgradable && !loading && !onDemand && deps.embedder ? missingVectors(run.view, denseModel(deps.embedder), deps.early) : 0;
  if (pending > 0 || loading) run.mode = 'sparse';
  if (loading) run.notes.push(`default mode ${plan.mode} served as sparse: the dense model is still loading`);
  if (pending > 0) run.notes.push(`default mode ${plan.mode} served as sparse: ${pending} chunks still wait for vectors`);
}

/** §7.7.3 session dedup: the ids this session was already given are excluded at recall, this page's recorded in `hits`. */
function beginSession(run: Run): void {
  const id = run.params.sessionId;
  if (id !== undefined) run.session = run.deps.sessions.begin(id, run.cursor?.session);
}

/** §7.7 `rewrite` (gated on transform.methods): the spelling-corrected query, or several variants fused. */
async function rewrite(run: Run): Promise<void> {
  const { params, deps } = run;
  if (params.rewrite !== 'rewrite' && params.rewrite !== 'multi-query') return;
  const text = run.variants[0];
  // A bundle with typo shards corrects from them (one edit away, a few KB) rather than read the whole index.
  if (params.rewrite === 'rewrite' && deps.residency?.typos) return typos(run, true);
  // The index's vocabulary and sample passages: for a store read on demand, all of it.
  await deps.residency?.everything(run.view);
  const tdeps = { analyzer: deps.analyzer, view: run.view, texts: deps.texts };
  if (params.rewrite === 'rewrite') run.variants = [(await rewriteQuery(text, tdeps)).query];
  else run.variants = (await queryVariants(text, MULTI_QUERY_VARIANTS, tdeps)).queries;
  run.rewrittenQuery = run.variants[0];
  if (run.variants.length > 1) run.notes.push(`multi-query: ${run.variants.length} variants fused by RRF`);
  checkAborted(run.ctx.signal);
}

/**
 * Typo tolerance (query/typos.ts), where the store finds the corpus's words near a query word (a
 * bundle with typo shards) and the request asks for no rewrite of its own (`rewrite: false` turns
 * it off), or asks for `rewrite` (`asked`). What was searched is in `rewrittenQuery` and `usage.notes`.
 */
async function typos(run: Run, asked = false): Promise<void> {
  const { params, deps } = run;
  if ((!asked && params.rewrite !== undefined) || !deps.residency?.typos || run.variants.length !== 1) return;
  const fixed = await correctTypos(run.variants[0], { analyzer: deps.analyzer, view: run.view, residency: deps.residency });
  checkAborted(run.ctx.signal);
  if (asked) run.rewrittenQuery = fixed.query; // an asked rewrite says what it searched, changed or not
  if (fixed.fixes.length === 0) return;
  run.variants = [fixed.query];
  run.rewrittenQuery = fixed.query;
  run.notes.push(typoNote(fixed.fixes));
}

/** Recall in the served mode, the metadata filter applied while candidates are generated, session-seen hits excluded. */
async function recallStage(run: Run): Promise<void> {
  const { params, deps } = run;
  const filter = params.filter ? compileFilter(params.filter, deps.fields) : undefined;
  run.ctx.onStage?.('recall', 0);
  const heldOut = new Set<string>();
  const accept = acceptOf(run.view, filter, heldOut);
  const exclude = run.session?.exclude ?? new Set<string>();
  if (deps.residency) {
    // A store read on demand: what looks at every candidate's meta (a filter, recency) reads every
    // document's; what compares hit ids before the page is cut (fusion, variants, dedup), every id.
    if (accept || params.recency) await deps.residency.table(run.view, 'all');
    else if (run.mode === 'hybrid' || run.variants.length > 1 || exclude.size > 0) await deps.residency.table(run.view, 'ids');
    checkAborted(run.ctx.signal);
  }
  const rec = await recallVariants(deps, {
    view: run.view,
    text: contentText(params.query),
    mode: run.mode,
    unit: run.unit,
    depth: run.plan.candidateK,
    refineDepth: refineDepth(run),
    accept,
    exclude,
    fusion: params.fusion,
    signal: run.ctx.signal,
  }, run.variants);
  run.notes.push(...rec.notes);
  // Words in a script the index never saw match nothing: said, not left to look like a miss (a store read on demand has no dictionary in memory to tell).
  const unseen = run.mode !== 'dense' && !deps.residency ? unseenScriptNote(contentText(params.query), run.view) : undefined;
  if (unseen) run.notes.push(unseen);
  if (heldOut.size > 0) run.notes.push(quarantineNote(heldOut));
  checkAborted(run.ctx.signal);
  run.list = rec.candidates;
  run.candidates = rec.candidates.length;
  run.floor = rec.floor;
}

/**
 * How deep a dense-only list needs fine scores: to the end of the requested page when no stage
 * after recall (recency, rerank, MMR, the fusion of query variants) can move a candidate from past
 * it into it, so that every page of one list is cut from the same order; else the whole list.
 */
function refineDepth(run: Run): number {
  const { params, plan } = run;
  if (params.recency || plan.rerank || params.mmr || run.variants.length > 1) return plan.candidateK;
  return Math.min(plan.candidateK, (run.cursor?.offset ?? 0) + plan.k);
}

/**
 * The recall filter: the request's metadata filter, and the documents this version quarantines
 * (§15.3, after a `feedback` integrity signal), which are recorded in `heldOut` when they compete.
 */
function acceptOf(view: IndexView, filter: ((meta: Record<string, unknown>) => boolean) | undefined, heldOut: Set<string>): ((doc: DocEntry) => boolean) | undefined {
  const held = view.quarantined;
  if (!held?.size) return filter && ((doc) => filter(doc.meta));
  return (doc) => {
    if (held.has(doc.id)) {
      heldOut.add(doc.id);
      return false;
    }
    return filter ? filter(doc.meta) : true;
  };
}

function quarantineNote(ids: ReadonlySet<string>): string {
  const list = [...ids].sort();
  const shown = list.slice(0, 5).map((id) => `'${id.slice(0, 64)}'`).join(', ');
  return `quarantined after a feedback integrity signal, left out: ${shown}${list.length > 5 ? ` and ${list.length - 5} more` : ''} (release with x-inpage/release)`;
}

/** Recency multiplier relative to the newest dated candidate, mapped around the stage floor. */
function recency(run: Run, cands: Candidate[], floor: number | undefined): void {
  const { field, halfLifeDays } = run.params.recency!;
  applyRecency(cands, field, halfLifeDays, floor, run.notes);
}

/** The plan's reranker rescores the leading `topN`; the rest follow in recall order up to `k`. */
async function rerank(run: Run): Promise<void> {
  if (!run.plan.rerank) return;
  const { reranker, topN } = run.plan.rerank;
  const { signal } = run.ctx;
  run.ctx.onStage?.('rerank', 0.5);
  const pool = run.list.slice(0, topN);
  await resident(run, pool);
  const texts = await loadTexts(run.reader, pool, 'chunk');
  checkAborted(signal);
  const passages = pool.map((c, i) => (c.seg.lex.contexts[c.local] ? `${c.seg.lex.contexts[c.local]}\n${texts[i]}` : texts[i]));
  const scores = await reranker.score(run.variants[0], passages, signal);
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
  if (run.params.recency) recency(run, pool, 0);
  run.reranked = pool.length;
  const { k } = run.plan;
  run.list = pool.length < k ? [...pool, ...run.list.slice(pool.length, k)] : pool;
}

/** MMR over the leading candidates: cosine of their vectors when all have one, else term Jaccard. */
async function mmr(run: Run): Promise<void> {
  const { params, deps } = run;
  if (!params.mmr || run.list.length <= 1) return;
  run.ctx.onStage?.('mmr', 0.8);
  const pool = run.list.slice(0, MMR_POOL);
  await resident(run, pool);
  const model = deps.embedder && denseModel(deps.embedder);
  const vecs = model ? pool.map((c) => candidateVector(c, model)) : [];
  let sim: (i: number, j: number) => number;
  if (model && vecs.every((v) => v !== undefined)) {
    sim = (i, j) => cosine(vecs[i]!, vecs[j]!);
  } else {
    const texts = await loadTexts(run.reader, pool, 'chunk');
    const sets = texts.map((t) => new Set(deps.analyzer.indexTerms(t)));
    sim = (i, j) => jaccard(sets[i], sets[j]);
  }
  checkAborted(run.ctx.signal);
  const order = mmrOrder(pool.map((c) => c.score), params.mmr.lambda, sim);
  run.list = [...order.map((i) => pool[i]), ...run.list.slice(pool.length)];
}

/** §7.7 `minScore`: hits scoring below it are dropped (after rerank, on the final scale). */
function minScore(run: Run): void {
  const min = run.params.minScore;
  if (min !== undefined) run.list = run.list.filter((c) => c.score >= min);
}

/** The page at the cursor's offset (or the first). */
function pageAt(run: Run): void {
  run.ctx.onStage?.('pack', 0.9);
  run.offset = run.cursor?.offset ?? 0;
  run.page = run.list.slice(run.offset, run.offset + run.plan.k);
}

/** §7.7 `tokenBudget`: the leading hits of the page that fit. */
function budget(run: Run): void {
  if (run.params.tokenBudget === undefined) return;
  const packed = packBudget(run.page, run.unit, run.params.tokenBudget);
  if (packed.count === 0 && run.page.length > 0) run.notes.push('tokenBudget: the next hit alone exceeds the budget');
  run.page = run.page.slice(0, packed.count);
  run.tokens = packed.tokens;
}

/** The page as hits (texts, trust, vectors), the next cursor, the session's record and usage. */
async function hits(run: Run): Promise<RetrieveResult> {
  const { params, deps, page, unit, session, view } = run;
  const next = run.offset + page.length;
  const nextCursor =
    next < run.list.length && page.length > 0
      ? encodeCursor({ version: view.version, offset: next, hash: run.hash, ...(session ? { session: session.chainStart } : {}) })
      : undefined;

  const out: Hit[] = page.map((c) => toHit(c, unit, run.unitOut));
  // Bodies are read for every page: the injection screen needs them even when includeText is false
  // (then a pinned snapshot whose texts are gone is still served, only unscreened).
  const texts = page.length === 0 ? [] : params.includeText !== false
    ? await loadTexts(run.reader, page, unit)
    : await loadTexts(run.reader, page, unit).catch((e: unknown) => {
      if (e instanceof DocumentRewritten) return undefined;
      throw e;
    });
  out.forEach((h, i) => {
    if (params.includeText !== false) h.text = texts![i];
    // §15.2: everything here arrived through index/add, so nothing is vouched for ("untrusted").
    h.trust = texts && suspectInjection(texts[i]) ? { level: 'untrusted', injectionSuspected: true } : { level: 'untrusted' };
  });
  if (params.includeVectors && deps.embedder) {
    const model = denseModel(deps.embedder);
    const encoding = params.encoding ?? 'json';
    out.forEach((h, i) => {
      const v = candidateVector(page[i], model);
      // §7.3.1: the encoding used is echoed, and `dimension` accompanies every vector.
      if (!v) return;
      h.vector = encodeVectors([v], encoding)[0];
      h.encoding = encoding;
      h.dimension = v.length;
    });
  }
  checkAborted(run.ctx.signal);
  if (session && params.sessionId !== undefined) deps.sessions.record(params.sessionId, page.map((c) => hitId(c, unit)), session.seq);

  const result: RetrieveResult = {
    hits: out,
    indexVersion: String(view.version),
    usage: { candidates: run.candidates, reranked: run.reranked, latencyMs: Math.round((performance.now() - run.t0) * 100) / 100 },
  };
  if (run.tokens !== undefined) result.usage!.tokens = run.tokens;
  if (run.rewrittenQuery !== undefined) result.rewrittenQuery = run.rewrittenQuery;
  if (run.notes.length > 0) result.usage!.notes = run.notes;
  if (nextCursor) result.nextCursor = nextCursor;
  return result;
}
