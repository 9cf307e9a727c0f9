/**
 * The last retrieve stages (src/engine/query/retrieve.ts): the page at the cursor, the token
 * budget, the hits with their texts, trust and vectors, the next cursor and usage, then the
 * annotations (pages, matches).
 */
import type { Hit, RetrieveResult } from '../../protocol/types.ts';
import { encodeVectors } from '../../protocol/vector-codec.ts';
import { checkAborted } from '../../util/abort.ts';
import { candidateVector, denseModel } from '../index/dense.ts';
import { hitId } from '../index/hit-id.ts';
import { encodeCursor } from './cursor.ts';
import { DocumentRewritten, loadTexts, packBudget, toHit } from './hits.ts';
import { suspectInjection } from './injection.ts';
import { addMatches } from './matches.ts';
import { addPages } from './pages.ts';
import type { Run } from './retrieve-run.ts';

/** The page at the cursor's offset (or the first). */
export function pageAt(run: Run): void {
  run.ctx.onStage?.('pack', 0.9);
  run.offset = run.cursor?.offset ?? 0;
  run.page = run.list.slice(run.offset, run.offset + run.plan.k);
}

/** §7.7 `tokenBudget`: the leading hits of the page that fit. */
export function budget(run: Run): void {
  if (run.params.tokenBudget === undefined) return;
  const packed = packBudget(run.page, run.unit, run.params.tokenBudget);
  if (packed.count === 0 && run.page.length > 0) run.notes.push('tokenBudget: the next hit alone exceeds the budget');
  run.page = run.page.slice(0, packed.count);
  run.tokens = packed.tokens;
}

/** The page as hits (texts, trust, vectors), the next cursor, the session's record and usage. */
export async function hits(run: Run): Promise<RetrieveResult> {
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
/** The hits' page numbers (paged documents: pages.ts) and, when asked, `x-inpage-matches` (matches.ts). */
export function annotate(run: Run, result: RetrieveResult): RetrieveResult {
  addPages(result.hits);
  addMatches(run.deps.analyzer, run.params, result.hits, run.rewrittenQuery);
  return result;
}
