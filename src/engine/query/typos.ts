/**
 * Typo tolerance over a store that finds the corpus's words one edit from a query word (a bundle's
 * typo shards: `PartialSource.nearWords`). Only a word the index does not know is corrected (its
 * term is in no chunk), or one it barely knows (in ≤ RARE_DF chunks) when a word one edit away is
 * far more frequent; the correction is the most frequent corpus word within one edit. What was
 * searched is said (`rewrittenQuery`, `usage.notes`); scores are those of the query searched.
 *
 * The query is corrected as text, before recall, so every mode searches the corrected words: the
 * lexical side (sparse, hybrid) and the query a dense model embeds.
 */
import type { NearWord } from '../contracts.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import { NLTK_STOPWORDS } from '../analysis/stopwords.ts';
import { findTerm } from '../index/segment.ts';
import type { IndexView } from '../index/view.ts';
import type { Residency } from '../state/residency.ts';

/** A known word in at most this many chunks may still be a typo (a corpus has its own misspellings). */
export const RARE_DF = 2;
/** …when a word one edit away is at least this many times as frequent; the word as typed is then kept beside it. */
export const RARE_RATIO = 50;
/** Words corrected per query at most (each reads up to four shards). */
const MAX_FIXES = 8;

/** Words shorter than this are neither corrected nor proposed (two letters are one edit from too much). */
export const MIN_TYPO_WORD = 3;
/** Longer words are left alone: an identifier or a URL, not a word anyone misspells. */
export const MAX_TYPO_WORD = 24;
/** Letters (and their marks) of a script written with spaces: CJK is searched by bigrams, not words. */
const TYPO_WORD = /^(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{M}])+$/u;

/** True when `word` (lowercase) is a word typo tolerance corrects or proposes. */
export function typoWord(word: string): boolean {
  return word.length >= MIN_TYPO_WORD && word.length <= MAX_TYPO_WORD && TYPO_WORD.test(word);
}

const STOPWORDS: ReadonlySet<string> = new Set(NLTK_STOPWORDS);

/** One word corrected: `to` searched instead of `from`, or beside it when `kept` (a rare word, not an unknown one). */
export interface TypoFix {
  from: string;
  to: string;
  kept: boolean;
}

/**
 * The correction of `word` (lowercase; its term in `df` chunks) among `near` (the corpus's words
 * within one edit of it, itself included when the corpus has it), or undefined: the most frequent
 * candidate (ties: alphabetical) that is not a stopword nor another form of the same term.
 */
export function chooseFix(word: string, df: number, near: readonly NearWord[], analyzer: Analyzer): { to: string; kept: boolean } | undefined {
  if (df > RARE_DF) return undefined;
  const term = analyzer.indexTerms(word)[0];
  let own = 0;
  let best: NearWord | undefined;
  for (const n of near) {
    if (n.word === word) {
      own = n.count;
      continue;
    }
    if (STOPWORDS.has(n.word) || !typoWord(n.word) || analyzer.indexTerms(n.word)[0] === term) continue;
    if (!best || n.count > best.count || (n.count === best.count && n.word < best.word)) best = n;
  }
  if (!best) return undefined;
  if (df === 0) return { to: best.word, kept: false };
  return best.count >= RARE_RATIO * Math.max(own, df) ? { to: best.word, kept: true } : undefined;
}

export interface TypoDeps {
  analyzer: Analyzer;
  view: IndexView;
  residency: Residency;
}

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;

/** Chunks of `view` holding `term` (tombstoned ones included, as BM25 counts them). */
function chunkFrequency(view: IndexView, term: string): number {
  let n = 0;
  for (const s of view.segments) {
    const t = findTerm(s.lex.terms, term);
    if (t >= 0) n += s.lex.offsets[t + 1] - s.lex.offsets[t];
  }
  return n;
}

/** `query` with its unknown (or rare, misspelt-looking) words corrected, and what changed. */
export async function correctTypos(query: string, deps: TypoDeps): Promise<{ query: string; fixes: TypoFix[] }> {
  // An all-caps word in a mixed-case query is an acronym (TSS, SIAM), not a typo.
  const mixedCase = query !== query.toUpperCase();
  const words: { start: number; end: number; typed: string; word: string; term: string }[] = [];
  for (const m of query.matchAll(WORD)) {
    if (mixedCase && m[0].length > 1 && m[0] === m[0].toUpperCase()) continue;
    const word = m[0].normalize('NFKC').toLowerCase();
    if (!typoWord(word) || STOPWORDS.has(word)) continue;
    const terms = deps.analyzer.indexTerms(word);
    if (terms.length === 1) words.push({ start: m.index, end: m.index + m[0].length, typed: m[0], word, term: terms[0] });
  }
  if (words.length === 0) return { query, fixes: [] };
  // The query's own postings (sparse recall reads them next anyway) say which words the index knows.
  await deps.residency.terms(deps.view, words.map((w) => w.term));
  const suspects = words.map((w) => ({ ...w, df: chunkFrequency(deps.view, w.term) })).filter((w) => w.df <= RARE_DF).slice(0, MAX_FIXES);
  if (suspects.length === 0) return { query, fixes: [] };
  const near = await deps.residency.nearWords([...new Set(suspects.map((w) => w.word))]);
  const fixes: TypoFix[] = [];
  let out = '';
  let at = 0;
  for (const w of suspects) {
    const fix = chooseFix(w.word, w.df, near.get(w.word) ?? [], deps.analyzer);
    if (!fix) continue;
    const to = matchCase(fix.to, w.typed);
    out += query.slice(at, w.start) + (fix.kept ? `${w.typed} ${to}` : to);
    at = w.end;
    fixes.push({ from: w.typed, to, kept: fix.kept });
  }
  return fixes.length === 0 ? { query, fixes } : { query: out + query.slice(at), fixes };
}

/** The `usage.notes` line for `fixes`. */
export function typoNote(fixes: readonly TypoFix[]): string {
  const said = fixes.map((f) => (f.kept ? `'${f.from}' also as '${f.to}' (it is rare here)` : `'${f.from}' as '${f.to}'`));
  return `typo tolerance: searched ${said.join(', ')}`;
}

/** `word` in the letter case of `like` (all caps, capitalised, or as is). */
function matchCase(word: string, like: string): string {
  if (like.length > 1 && like === like.toUpperCase() && like !== like.toLowerCase()) return word.toUpperCase();
  if (like[0] === like[0].toUpperCase() && like[0] !== like[0].toLowerCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}
