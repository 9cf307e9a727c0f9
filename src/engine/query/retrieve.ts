/**
 * The retrieve pipeline (§7.7), one function per stage over one `Run`, in this order (`runRetrieve`):
 *
 *   snapshot → serve mode → session → rewrite → typos → recall (filter inside) → recency → rerank → minScore
 *   → MMR → monotonic scores (§4.6) → page (cursor) → token budget → hits → annotations (pages, matches)
 *   → BM25 statistics for an aggregator that asked (bm25-meta.ts)
 *
 * Deterministic: every ordering is total (score, then document id, then chunk index), so `seed`
 * needs no randomness. Here: the stages up to recall. The `Run` and its start: retrieve-run.ts;
 * the stages that reorder after recall: retrieve-order.ts; the page and its hits: retrieve-page.ts.
 */
import { contentText } from '../../protocol/content.ts';
import type { RetrieveResult } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import { denseModel, missingVectors } from '../index/dense.ts';
import type { DocEntry, IndexView } from '../index/view.ts';
import { compileFilter } from './filter-eval.ts';
import type { RetrievePlan } from './plan.ts';
import { lazyDense, recallVariants } from './recall.ts';
import { minScore, mmr, recency, rerank } from './retrieve-order.ts';
import { annotate, budget, hits, pageAt } from './retrieve-page.ts';
import { addBm25Stats } from './bm25-meta.ts';
import { resident, snapshot, type RetrieveContext, type RetrieveDeps, type Run } from './retrieve-run.ts';
import { makeMonotonic } from './score-order.ts';
import { unseenScriptNote } from './script-note.ts';
import { queryVariants, rewriteQuery } from './transform.ts';
import { correctTypos, typoNote } from './typos.ts';

export type { RetrieveContext, RetrieveDeps } from './retrieve-run.ts';

/** Query variants `rewrite: "multi-query"` retrieves with. */
const MULTI_QUERY_VARIANTS = 3;

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
  return addBm25Stats(run, annotate(run, await hits(run)));
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

