/**
 * Query transformation without a language model (§7.8): spelling correction against the index's
 * own vocabulary, and query variants for multi-query retrieval. Everything comes from the corpus:
 * the BM25 segments' term dictionaries (terms and document frequencies) and, to show corrected
 * words as words rather than stems, the text of a few chunks that contain them.
 */
import type { Analyzer } from '../analysis/analyzer.ts';
import { NLTK_STOPWORDS } from '../analysis/stopwords.ts';
import { findTerm } from '../index/segment.ts';
import { docAt, type IndexView, type LiveSegment } from '../index/view.ts';
import type { DocumentReader } from '../state/text-cache.ts';

/** The analysed terms of one index version with their document (chunk) frequencies. */
export interface Vocabulary {
  /** Terms by length: only ASCII-letter terms, the ones spelling correction may propose. */
  readonly byLength: ReadonlyMap<number, readonly string[]>;
  /** Chunk frequency of any term (0 when absent), tombstoned chunks included as BM25 counts them. */
  df(term: string): number;
  /** True for the term of an (English, NLTK) stopword: never a correction. */
  isStopword(term: string): boolean;
}

const vocabularies = new WeakMap<IndexView, Vocabulary>();

/** The vocabulary of `view`, built once per view (views are immutable). */
export function vocabularyOf(view: IndexView, analyzer: Analyzer): Vocabulary {
  let v = vocabularies.get(view);
  if (!v) vocabularies.set(view, (v = buildVocabulary(view, analyzer)));
  return v;
}

function buildVocabulary(view: IndexView, analyzer: Analyzer): Vocabulary {
  const stops = new Set(NLTK_STOPWORDS.flatMap((w) => analyzer.indexTerms(w)));
  const counts = new Map<string, number>();
  for (const s of view.segments) {
    const { terms, offsets } = s.lex;
    for (let t = 0; t < terms.length; t++) counts.set(terms[t], (counts.get(terms[t]) ?? 0) + offsets[t + 1] - offsets[t]);
  }
  const byLength = new Map<number, string[]>();
  for (const term of counts.keys()) {
    if (!CORRECTABLE.test(term)) continue;
    let list = byLength.get(term.length);
    if (!list) byLength.set(term.length, (list = []));
    list.push(term);
  }
  return { byLength, df: (term) => counts.get(term) ?? 0, isStopword: (term) => stops.has(term) };
}

/** Terms spelling correction works on (stems of plain English words). */
const CORRECTABLE = /^[a-z]{3,}$/;

/**
 * Cost of one edit against the log of a term's frequency (a noisy-channel ranking: each edit makes
 * a candidate e^EDIT_COST times less likely). Chosen on the dev sets with scripts/eval-typos.ts
 * (2, 2.5, 3, 3.5, 4 measured; 3.5 and 4 tie, see docs/eval.md); a minimum-score threshold only
 * lost recovered typos there, so there is none.
 */
const EDIT_COST = 3.5;

/** Largest edit distance considered: 1 for terms up to 4 letters, else 2. */
const maxEdits = (term: string): number => (term.length <= 4 ? 1 : 2);

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transposition) of `a` and `b`, or
 * `max + 1` as soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[n], max + 1);
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every string one edit (delete, transpose, replace, insert) away from `w`. */
function edits1(w: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= w.length; i++) {
    const [a, b] = [w.slice(0, i), w.slice(i)];
    if (b) out.add(a + b.slice(1));
    if (b.length > 1) out.add(a + b[1] + b[0] + b.slice(2));
    for (const c of LETTERS) {
      if (b && c !== b[0]) out.add(a + c + b.slice(1));
      out.add(a + c + b);
    }
  }
  return out;
}

/**
 * The vocabulary term the word `word` (lowercase, analysed to the single term `term`) most likely
 * misspells, or undefined when `term` is itself in the index (real-word errors are left alone) or
 * nothing is within reach. Candidates are (1) the terms of every word one edit from `word`, which
 * finds `president` for "presidnet" although the stems differ by more ("presid" vs "presidnet"),
 * and (2) terms within 1–2 edits of `term` itself. Stopwords are never proposed.
 */
export function correctTerm(word: string, term: string, vocab: Vocabulary, analyzer: Analyzer): { term: string; word?: string } | undefined {
  if (!CORRECTABLE.test(term) || vocab.df(term) > 0) return undefined;
  let best: string | undefined;
  let bestScore = -Infinity;
  /** For terms reached through a word one edit away: that word (how to show the correction). */
  const via = new Map<string, string>();
  const consider = (cand: string, d: number): void => {
    const df = vocab.df(cand);
    if (df === 0 || vocab.isStopword(cand)) return;
    const score = Math.log(df) - EDIT_COST * d;
    if (score > bestScore || (score === bestScore && best !== undefined && cand < best)) [best, bestScore] = [cand, score];
  };
  if (/^[a-z]+$/.test(word)) {
    for (const u of [...edits1(word)].sort()) {
      const terms = analyzer.indexTerms(u);
      if (terms.length !== 1) continue;
      if (!via.has(terms[0])) via.set(terms[0], u);
      consider(terms[0], 1);
    }
  }
  const max = maxEdits(term);
  for (let len = term.length - max; len <= term.length + max; len++) {
    for (const cand of vocab.byLength.get(len) ?? []) {
      const d = editDistance(term, cand, max);
      if (d <= max) consider(cand, d);
    }
  }
  return best === undefined ? undefined : { term: best, word: via.get(best) };
}

/** One corrected word of a query. */
export interface Correction {
  from: string;
  to: string;
}

/** A rewritten query and what changed. */
export interface Rewrite {
  query: string;
  corrections: Correction[];
}

export interface TransformDeps {
  analyzer: Analyzer;
  view: IndexView;
  texts: DocumentReader;
}

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;

/**
 * Spelling correction of `query` against the index vocabulary: each word whose (single, plain
 * English) term is absent from the index is replaced by the likeliest term within 1–2 edits,
 * shown as the word one edit from what was typed, else as the word the corpus most often writes
 * for that term. Everything else is kept as typed.
 */
export async function rewriteQuery(query: string, deps: TransformDeps): Promise<Rewrite> {
  const vocab = vocabularyOf(deps.view, deps.analyzer);
  const corrections: Correction[] = [];
  const wanted = new Map<string, string>(); // corrected term → surface (filled below)
  const plan: { start: number; end: number; word: string; term: string; surface?: string }[] = [];
  // An all-caps word in a mixed-case query is an acronym (TSS, SIAM), not a typo to correct.
  const mixedCase = query !== query.toUpperCase();
  for (const m of query.matchAll(WORD)) {
    if (mixedCase && m[0].length > 1 && m[0] === m[0].toUpperCase()) continue;
    const terms = deps.analyzer.indexTerms(m[0]);
    if (terms.length !== 1) continue;
    const fixed = correctTerm(m[0].toLowerCase(), terms[0], vocab, deps.analyzer);
    if (fixed === undefined) continue;
    plan.push({ start: m.index, end: m.index + m[0].length, word: m[0], term: fixed.term, surface: fixed.word });
    if (fixed.word === undefined) wanted.set(fixed.term, fixed.term);
  }
  if (plan.length === 0) return { query, corrections };
  if (wanted.size > 0) await surfaceForms(wanted, deps);
  let out = '';
  let at = 0;
  for (const p of plan) {
    const surface = matchCase(p.surface ?? wanted.get(p.term)!, p.word);
    out += query.slice(at, p.start) + surface;
    at = p.end;
    corrections.push({ from: p.word, to: surface });
  }
  return { query: out + query.slice(at), corrections };
}

/** `word` in the letter case of `like` (all caps, capitalised, or as is). */
function matchCase(word: string, like: string): string {
  if (like.length > 1 && like === like.toUpperCase()) return word.toUpperCase();
  if (like[0] === like[0].toUpperCase() && like[0] !== like[0].toLowerCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

/** Chunks read per corrected term to find how the corpus spells it. */
const SURFACE_SAMPLES = 3;

/**
 * Replaces each stem in `forms` by the word that most often produces it in a few chunks holding it
 * ("whale" for whale, "harpooneers" rather than "harpoon" only when that is what the text says);
 * a stem no sampled text yields stays as is.
 */
async function surfaceForms(forms: Map<string, string>, deps: TransformDeps): Promise<void> {
  const samples: { term: string; seg: LiveSegment; local: number }[] = [];
  for (const term of forms.keys()) {
    let taken = 0;
    for (const seg of deps.view.segments) {
      const t = findTerm(seg.lex.terms, term);
      if (t < 0) continue;
      for (let p = seg.lex.offsets[t]; p < seg.lex.offsets[t + 1] && taken < SURFACE_SAMPLES; p++) {
        const local = seg.lex.postings[p];
        if (docAt(seg, local)) samples.push({ term, seg, local }), taken++;
      }
      if (taken >= SURFACE_SAMPLES) break;
    }
  }
  const ids = [...new Set(samples.map((s) => docAt(s.seg, s.local)!.id))];
  const docs = await deps.texts.getDocuments(ids);
  const byId = new Map(ids.map((id, i) => [id, docs[i]]));
  const counts = new Map<string, Map<string, number>>();
  for (const s of samples) {
    const doc = byId.get(docAt(s.seg, s.local)!.id);
    if (!doc) continue;
    const text = doc.text.slice(s.seg.lex.starts[s.local], s.seg.lex.ends[s.local]);
    for (const m of text.matchAll(WORD)) {
      const word = m[0].toLowerCase();
      if (word[0] !== s.term[0]) continue; // cheap pre-filter: a stem keeps its word's first letter
      const terms = deps.analyzer.indexTerms(word);
      if (terms.length !== 1 || terms[0] !== s.term) continue;
      let c = counts.get(s.term);
      if (!c) counts.set(s.term, (c = new Map()));
      c.set(word, (c.get(word) ?? 0) + 1);
    }
  }
  for (const [term, c] of counts) {
    // Most frequent spelling; ties to the shorter, then alphabetical, so the choice is deterministic.
    const best = [...c].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))[0];
    forms.set(term, best[0]);
  }
}

/**
 * Up to `n` distinct query variants for multi-query retrieval, best first: the spelling-corrected
 * query and the same without its most frequent term (a narrower variant that lets the rarer, more
 * specific terms lead). The query as typed is not a variant once corrected: fusing it back in cost
 * 0.06 nDCG@10 on misspelled dev queries.
 */
export async function queryVariants(query: string, n: number, deps: TransformDeps): Promise<{ queries: string[]; rewrite: Rewrite }> {
  const rewrite = await rewriteQuery(query, deps);
  const out: string[] = [];
  const push = (q: string): void => {
    const t = q.trim();
    if (t && !out.includes(t)) out.push(t);
  };
  push(rewrite.query);
  const narrower = withoutCommonestTerm(rewrite.query, deps);
  if (narrower !== undefined) push(narrower);
  return { queries: out.slice(0, Math.max(1, n)), rewrite };
}

/** The query without the word whose term is most frequent in the index, when it has ≥ 3 content words. */
function withoutCommonestTerm(query: string, deps: TransformDeps): string | undefined {
  const vocab = vocabularyOf(deps.view, deps.analyzer);
  const kept = new Set(deps.analyzer.queryTerms(query)); // stopwords are not among them
  const content = [...query.matchAll(WORD)]
    .map((m) => ({ m, terms: deps.analyzer.indexTerms(m[0]) }))
    .filter((w) => w.terms.length === 1 && kept.has(w.terms[0]) && vocab.df(w.terms[0]) > 0);
  if (content.length < 3) return undefined;
  const commonest = content.reduce((a, b) => (vocab.df(b.terms[0]) > vocab.df(a.terms[0]) ? b : a));
  const { index } = commonest.m;
  return (query.slice(0, index) + query.slice(index + commonest.m[0].length)).replace(/\s{2,}/g, ' ').trim();
}
