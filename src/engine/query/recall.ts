/**
 * The recall stage: sparse (BM25), dense (exact cosine) or hybrid (both, fused per §16.3), with
 * the metadata filter applied while candidates are generated and session-excluded hits dropped.
 */
import { fuseConvex, fuseRrf, fuseWeighted, type RankedList } from '../../protocol/fusion.ts';
import { DEFAULT_FUSION } from '../config.ts';
import type { RetrieveParams } from '../../protocol/types.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { Bm25 } from '../index/bm25.ts';
import { nextStamp, selectTop } from '../index/select-top.ts';
import type { Embedder, FineCodes } from '../contracts.ts';
import { ModelUnavailableError } from '../errors.ts';
import { denseModel, denseSearch, type DenseModel, earlySearch, hasVector, missingVectors, refineDense, refinePool, segmentVectors, type EarlyLookup } from '../index/dense.ts';
import { denseTuning } from '../index/vectors/tuning.ts';
import { hitId } from '../index/hit-id.ts';
import { checkAborted } from '../../util/abort.ts';
import { STAGE_FLOOR } from '../serving.ts';
import { compareCandidates, type Candidate, type DocEntry, type IndexView } from '../index/view.ts';
import type { Residency } from '../state/residency.ts';

export interface RecallInput {
  view: IndexView;
  text: string;
  mode: 'sparse' | 'dense' | 'hybrid';
  unit: 'chunk' | 'document';
  depth: number;
  /**
   * How many leading hits of a dense-only list need their fine scores (the rest keep their int8
   * cosines): the end of the page asked for, when nothing after recall reorders the list past it;
   * `depth` otherwise (the default).
   */
  refineDepth?: number;
  accept?: (doc: DocEntry) => boolean;
  exclude: ReadonlySet<string>;
  fusion?: RetrieveParams['fusion'];
  signal?: AbortSignal;
}

export interface RecallDeps {
  analyzer: Analyzer;
  bm25: Bm25;
  embedder?: Embedder;
  /** Chunk records by key (the store's): their fine codes rescore the head of a dense-only list. */
  readChunks?: (keys: number[]) => Promise<({ fine?: FineCodes } | undefined)[]>;
  /** Settles once the segments' vectors are in memory (a cold start reads them after the first sparse answer). */
  vectorsLoaded?: () => Promise<void>;
  /** Vectors background embedding computed ahead of their segment's commit (dense search scores them too). */
  early?: EarlyLookup;
  /** For a store read on demand: reads the query's postings before BM25 scores (state/residency.ts). */
  residency?: Residency;
  /**
   * With a cross-lingual embedder: the query's language and the index's when no indexed document
   * shares it; a default hybrid then drops its sparse list (language-gate.ts).
   */
  absentLanguage?: (text: string, view: IndexView) => Promise<{ query: string; index: string } | undefined>;
}

export interface RecallOutput {
  candidates: Candidate[];
  /** Score floor of the candidates' `score`. */
  floor: number;
  notes: string[];
}

/** Runs recall; returns candidates best first (deterministic order). */
export async function recall(deps: RecallDeps, r: RecallInput): Promise<RecallOutput> {
  const notes: string[] = [];
  const depth = r.depth + r.exclude.size;
  const keep = (cs: Candidate[]): Candidate[] =>
    (r.exclude.size ? cs.filter((c) => !r.exclude.has(hitId(c, r.unit))) : cs).slice(0, r.depth);
  const sparse = async (): Promise<Candidate[]> => {
    const terms = deps.analyzer.queryTerms(r.text);
    if (deps.residency) {
      await deps.residency.terms(r.view, terms);
      checkAborted(r.signal);
    }
    return keep(deps.bm25.search(r.view, terms, { k: depth, unit: r.unit, accept: r.accept, stamp: nextStamp() }));
  };
  // `refine`: dense-only lists are rescored with fine codes (one store read of the head); hybrid
  // fuses the int8 cosines, whose rounding (~4·10⁻⁴) does not move a fused rank.
  const dense = async (refine: boolean): Promise<Candidate[]> => {
    const e = deps.embedder!;
    const model = denseModel(e);
    if (lazyDense(deps, r.view, model)) return keep(await denseOnDemand(deps, r, model, depth, notes));
    const missing = missingVectors(r.view, model, deps.early);
    if (missing > 0) notes.push(`${missing} chunks have no vectors from embedder '${e.identity}'; dense search skipped them`);
    // Nothing to compare with (empty index, or nothing embedded yet): do not wait on the model.
    if (!r.view.segments.some((seg) => segmentVectors(seg, model)) && !deps.early?.size) return [];
    const [q] = await e.embed([r.text], 'query', r.signal);
    checkAborted(r.signal);
    const read = refine && denseTuning.refine ? deps.readChunks : undefined;
    // Only the head that can reach the page is read back (one store read per chunk): the margin
    // rule of refineDense keeps its order what a deeper refinement gives. The int8 list keeps its
    // depth, which also sizes the Hamming shortlist.
    const head = Math.min(depth, (r.refineDepth ?? r.depth) + r.exclude.size);
    const k = read ? refinePool(depth) : depth;
    let hits = denseSearch(r.view, q, model, { k, unit: r.unit, accept: r.accept, stamp: nextStamp() });
    if (read) {
      hits = await refineDense(hits, q, model, read, head);
      checkAborted(r.signal);
    }
    // Chunks embedded ahead of their segment (exact float cosines: nothing to refine).
    const ahead = deps.early ? earlySearch(r.view, q, model, deps.early, { k: depth, unit: r.unit, accept: r.accept, stamp: nextStamp() }) : [];
    return keep(ahead.length > 0 ? [...hits, ...ahead].sort(compareCandidates) : hits);
  };
  if (r.mode === 'sparse') return { candidates: await sparse(), floor: STAGE_FLOOR.sparse, notes };
  if (r.mode === 'dense') return { candidates: await dense(true), floor: STAGE_FLOOR.dense, notes };

  // Hybrid keeps answering from its sparse half when the embedder cannot serve (its model failed to
  // load: a ModelUnavailableError, ../errors.ts); `dense` alone fails instead.
  const d = await dense(false).catch((e: unknown) => {
    if (!(e instanceof ModelUnavailableError) || r.signal?.aborted) throw e;
    notes.push(`dense half unavailable (${e.message}); hybrid ranked by sparse alone`);
    return [] as Candidate[];
  });
  // A query in a language no document is written in matches only by accident (language-gate.ts).
  const absent = !r.fusion && d.length > 0 && deps.absentLanguage ? await deps.absentLanguage(r.text, r.view) : undefined;
  if (absent) notes.push(`the query's language (${absent.query}) is not the index's (${absent.index}): hybrid ranked by dense alone`);
  const s = absent ? [] : await sparse();
  const byId = new Map<string, Candidate>();
  const fusion = r.fusion ?? { method: DEFAULT_FUSION.method };
  const weights = fusion.method === 'weighted' && !fusion.weights ? (deps.embedder?.fusionWeights ?? DEFAULT_FUSION.weights) : fusion.weights;
  const lists: RankedList[] = [
    { name: 'dense', weight: weights?.dense, items: d.map((c) => ({ id: hitId(c, r.unit), score: c.score })), scoreFloor: STAGE_FLOOR.dense },
    { name: 'sparse', weight: weights?.sparse, items: s.map((c) => ({ id: hitId(c, r.unit), score: c.score })), scoreFloor: STAGE_FLOOR.sparse },
  ];
  const fused =
    fusion.method === 'convex'
      ? fuseConvex(lists, fusion.alpha)
      : fusion.method === 'weighted'
        ? fuseWeighted(lists)
        : fuseRrf(lists, fusion.rrfK);
  const sparseById = new Map(s.map((c) => [hitId(c, r.unit), c]));
  for (const c of d) byId.set(hitId(c, r.unit), c);
  const candidates = fused.slice(0, r.depth).map((f) => {
    const dc = byId.get(f.id);
    const sc = sparseById.get(f.id);
    // unit "document": the two lists may name different best chunks; keep the one that contributed more.
    const base = dc && sc ? ((f.contributions.dense ?? 0) >= (f.contributions.sparse ?? 0) ? dc : sc) : (dc ?? sc)!;
    const scores: Candidate['scores'] = {};
    if (dc) scores.dense = dc.scores.dense;
    if (sc) scores.sparse = sc.scores.sparse;
    return { seg: base.seg, local: base.local, doc: base.doc, score: f.score, scores };
  });
  if (deps.embedder && !lazyDense(deps, r.view, denseModel(deps.embedder))) {
    const model = denseModel(deps.embedder);
    const lacking = candidates.filter((c) => c.scores.dense === undefined && !hasVector(c, model, deps.early)).length;
    if (lacking > 0) notes.push(`${lacking} of ${candidates.length} candidates had no vector yet: ranked by their sparse score alone`);
  }
  return { candidates, floor: STAGE_FLOOR.fused, notes };
}

/**
 * True when dense search is answered by the store on demand (a static-model bundle's clustered
 * sign bits) because no segment's vectors are in memory yet: a first dense or hybrid answer then
 * reads a few shards instead of every vector. Once the vectors are read, the exact search serves.
 */
export function lazyDense(deps: Pick<RecallDeps, 'residency'>, view: IndexView, model: DenseModel): boolean {
  return deps.residency?.lazyDense === true && view.segments.length > 0 && view.segments.every((s) => s.record.partial !== undefined && !segmentVectors(s, model));
}

/** Dense recall over the store's nearest clusters: the approximate cosines, ranked as dense search ranks (floor, unit, filter). */
async function denseOnDemand(deps: RecallDeps, r: RecallInput, model: DenseModel, depth: number, notes: string[]): Promise<Candidate[]> {
  const [q] = await deps.embedder!.embed([r.text], 'query', r.signal);
  checkAborted(r.signal);
  if (!q.some((x) => x !== 0)) return []; // no known token: no direction, nothing is similar
  const near = await deps.residency!.nearest(r.view, q);
  checkAborted(r.signal);
  notes.push(
    `dense scores approximate (the bundle's sign-bit codes of the ${near.probed} of ${near.clusters} clusters nearest the query, ` +
      `score = centroid·q + residual sign bits·q; exact int8 cosines once the vectors are read)`,
  );
  const floor = model.minSimilarity ?? -Infinity;
  const score = (s: number, c: number): number => {
    const v = near.score(s, c);
    return v >= floor ? v : NaN;
  };
  return selectTop(r.view, { k: depth, unit: r.unit, accept: r.accept, stamp: nextStamp() }, score, 'dense', false, near.positions);
}

/**
 * Multi-query recall: one recall per query variant, fused by RRF over hit ids (§16.3: ranks, not
 * scores, so variants with different term counts weigh alike). One variant is a plain recall.
 */
export async function recallVariants(deps: RecallDeps, r: RecallInput, variants: readonly string[]): Promise<RecallOutput> {
  if (variants.length <= 1) return recall(deps, { ...r, text: variants[0] ?? r.text });
  const runs = [];
  for (const text of variants) runs.push(await recall(deps, { ...r, text }));
  const byId = new Map<string, Candidate>();
  const lists: RankedList[] = runs.map((run, i) => ({
    name: `q${i}`,
    items: run.candidates.map((c) => {
      const id = hitId(c, r.unit);
      if (!byId.has(id)) byId.set(id, c);
      return { id, score: c.score };
    }),
  }));
  const candidates = fuseRrf(lists).slice(0, r.depth).map((f) => {
    const c = byId.get(f.id)!;
    return { seg: c.seg, local: c.local, doc: c.doc, score: f.score, scores: { ...c.scores } };
  });
  return { candidates, floor: STAGE_FLOOR.fused, notes: [...new Set(runs.flatMap((run) => run.notes))] };
}
