/**
 * Text → index terms. Unicode-aware and lossless in the sense that every letter or digit of any
 * script ends up in some term; nothing is dropped silently (stopwords are only removed from
 * queries, see `AnalyzerOptions.stopwords`).
 *
 * Pipeline: NFKC → lowercase → words (runs of \p{L}\p{N}\p{M}, apostrophes inside words kept) →
 *   - CJK runs (Han, Hiragana, Katakana, Hangul) → overlapping character bigrams (a lone character
 *     → unigram), because those scripts are not space-delimited;
 *   - Latin words → accent folding (NFD, strip \p{M}, ß→ss, æ→ae, ø→o, …), English possessive
 *     `'s` removed, other apostrophes removed (don't → dont), then stemmed;
 *   - any other script (Cyrillic, Greek, Arabic, Devanagari, …) → kept as is, marks included
 *     (stripping marks there would change letters, not accents).
 *
 * Stemming: Porter (1980) via the `stemmer` package (wooorm: 4 KB, ESM, typed, maintained).
 * Chosen by measurement on the dev collections (docs/eval.md): Porter lifts mean nDCG@10 by
 * +0.05 over no stemming; Snowball English/Porter2 (`snowball-stemmers`) measured only +0.004
 * above Porter but is an 868 KB unmaintained UMD bundle of 24 languages — not worth it in a page.
 * Stopwords: the NLTK English list, removed from queries only (measured +0.017 over Lucene's 33
 * words; removing them from documents too changed nDCG@10 by < 0.002 and would make text unsearchable).
 */
import { stemmer as porter } from 'stemmer';
import { stopwordSet, type StopwordList } from './stopwords.ts';

export interface AnalyzerOptions {
  /** English stemming of pure a–z tokens. Default 'porter'. */
  stem?: 'porter' | 'none' | ((word: string) => string);
  /** Stop list. Default 'nltk'. */
  stopwords?: StopwordList;
  /** Where stopwords are removed: 'query' (default; documents keep everything) or 'both'. */
  stopwordsAt?: 'query' | 'both';
  /**
   * Han, kana and Hangul runs: 'bigrams' (default, measured: docs/multilingual.md), 'words' (the
   * platform's Intl.Segmenter dictionary words) or 'both' (words and bigrams).
   */
  cjk?: CjkTerms;
}

export type CjkTerms = 'bigrams' | 'words' | 'both';

/** A configured analyzer. `id` names its configuration; segments record it (terms are only comparable under one id). */
export interface Analyzer {
  readonly id: string;
  /** Terms of a document text, in order, duplicates kept (tf counts them). */
  indexTerms(text: string): string[];
  /** Terms of a query. Stopwords removed unless that would leave nothing. */
  queryTerms(text: string): string[];
  /**
   * The document terms of `text` with where each came from: `[start, end)` in `text` itself (not
   * its normalised form), so a viewer can mark exactly what the index matched. A CJK bigram spans
   * its two characters; every other term spans its word.
   */
  termSpans(text: string): TermSpan[];
}

/** One index term and the `[start, end)` of `text` (UTF-16 code units) it was produced from. */
export interface TermSpan {
  term: string;
  start: number;
  end: number;
}

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u30fc\\uff70';
const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;
const HAS_CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
const CJK_SPLIT = new RegExp(`[${CJK_CLASS}]+|[^${CJK_CLASS}]+`, 'gu');
const IS_CJK_RUN = new RegExp(`^[${CJK_CLASS}]`, 'u');
const ASCII_WORD = /^[a-z0-9]+$/;
const ASCII_LETTERS = /^[a-z]+$/;
const LATIN_WORD = /^[\p{Script=Latin}\p{N}\p{M}'’]+$/u;
const MARKS = /\p{M}+/gu;
const POSSESSIVE = /['’]s$/;
const APOSTROPHES = /['’]/g;
/** Latin letters that NFD does not decompose. */
const FOLD: Readonly<Record<string, string>> = Object.freeze({
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h', ŧ: 't', ŋ: 'n',
});
const FOLD_CHARS = /[ßæœøđðłþıħŧŋ]/g;

/** Folds a lowercase Latin word to plain ASCII where possible (accents and ligatures). */
export function foldLatin(word: string): string {
  let w = word.normalize('NFD').replace(MARKS, '');
  if (FOLD_CHARS.test(w)) w = w.replace(FOLD_CHARS, (c) => FOLD[c] ?? c);
  FOLD_CHARS.lastIndex = 0;
  return w;
}

/**
 * A CJK run: character bigrams, plus (in documents) every single character so that a
 * one-character query (猫) still finds 黒猫がいる. A query of two or more characters uses bigrams
 * only, which keeps it precise; a single character yields itself.
 */
function pushCjk(run: string, out: string[], query: boolean): void {
  const chars = Array.from(run);
  if (chars.length === 1 || !query) out.push(...chars);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}

/** Whether this runtime has a word segmenter (`Intl.Segmenter`), found by its presence in `intl`. */
export function hasWordSegmenter(intl: object | undefined = typeof Intl === 'undefined' ? undefined : Intl): boolean {
  return intl !== undefined && typeof (intl as { Segmenter?: unknown }).Segmenter === 'function';
}

/** Scripts written without spaces between words: split with the platform's word segmenter. */
const UNSPACED = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const segmenter = hasWordSegmenter() ? new Intl.Segmenter(undefined, { granularity: 'word' }) : undefined;

/** The engine's log line for that choice (the worker prints it at start). */
export const describeWordSegmenter = (present = segmenter !== undefined): string =>
  present
    ? 'word segmenter: Intl.Segmenter (Thai, Lao, Khmer and Myanmar are split into words)'
    : 'word segmenter: none (no Intl.Segmenter): Thai, Lao, Khmer and Myanmar runs stay whole words, and CJK is indexed as bigrams';

/**
 * ICU's dictionary word breaker is superlinear in the length of an unspaced run (measured in
 * Node 20: 5,000 Thai characters 13 ms, 20,000 800 ms; a 50,000-character run 8 s), so a long run
 * is segmented in windows: each window's last word is left to the next window (it may continue
 * past the cut), so real text segments exactly as a whole; only a single "word" longer than a
 * window is cut.
 */
const SEGMENT_WINDOW = 1000;

/** The word-like segments of `text` with their UTF-16 offsets, in windows of SEGMENT_WINDOW. */
function* segmentWords(seg: Intl.Segmenter, text: string): Generator<{ segment: string; index: number }> {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + SEGMENT_WINDOW);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end--; // never split a surrogate pair
    const parts = [...seg.segment(text.slice(at, end))];
    // Not the last window: its last segment may run on into the next, so it starts that window.
    const keep = end < text.length && parts.length > 1 ? parts.length - 1 : parts.length;
    for (let i = 0; i < keep; i++) if (parts[i].isWordLike) yield { segment: parts[i].segment, index: at + parts[i].index };
    at = keep < parts.length ? at + parts[keep].index : end;
  }
}

/**
 * Greek, Arabic and Hebrew: accents, vowel points and tashkeel are dropped (Αθήνα = ΑΘΗΝΑ,
 * كَتَبَ = كتب), as Lucene's Greek and Arabic normalisers do; final sigma is folded. Other
 * scripts keep their marks (in Indic scripts they are letters' vowels).
 */
const FOLDED_SCRIPTS = /[\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}]/u;
const NONSPACING = /\p{Mn}+/gu;
const foldMarks = (w: string): string => w.normalize('NFD').replace(NONSPACING, '').normalize('NFC').replace(/ς/g, 'σ');

/** An analyzer's options resolved: what each step does, and the id that names them. */
interface Settings {
  id: string;
  stem: (w: string) => string;
  stops: ReadonlySet<string>;
  stopAt: 'query' | 'both';
  /** CJK runs yield the segmenter's words (only when a segmenter exists). */
  cjkWords: boolean;
  /** CJK runs yield bigrams (always without a segmenter). */
  cjkBigrams: boolean;
}

function settingsOf(options: AnalyzerOptions): Settings {
  const stemOpt = options.stem ?? 'porter';
  const stem: (w: string) => string = stemOpt === 'porter' ? porter : stemOpt === 'none' ? (w) => w : stemOpt;
  const stopName = options.stopwords ?? 'nltk';
  const stopAt = options.stopwordsAt ?? 'query';
  const stemName = typeof stemOpt === 'function' ? 'custom' : stemOpt;
  const cjk = options.cjk ?? 'bigrams';
  // Without a segmenter (an old runtime) words are not available: bigrams, and the id says so.
  const cjkWords = cjk !== 'bigrams' && segmenter !== undefined;
  const cjkBigrams = cjk !== 'words' || segmenter === undefined;
  const id = `a2/${stemName}/${stopAt === 'both' ? stopName : 'none'}${cjkWords ? `/cjk-${cjk}` : ''}`;
  return { id, stem, stops: stopwordSet(stopName), stopAt, cjkWords, cjkBigrams };
}

/** `stem`, remembering its answers (a corpus repeats its words); forgets all past 200,000. */
function cachedStem(stem: (w: string) => string): (w: string) => string {
  const cache = new Map<string, string>();
  return (w) => {
    let s = cache.get(w);
    if (s === undefined) {
      s = stem(w);
      if (cache.size > 200_000) cache.clear();
      cache.set(w, s);
    }
    return s;
  };
}

type PushWord = (word: string, out: string[], drop: boolean, query: boolean) => void;

/** The per-word step: one word (already lowercased) → terms, appended to `out`; `drop` removes stopwords. */
function wordPipeline(s: Settings): PushWord {
  const stemOf = cachedStem(s.stem);
  const pushLatin = (w: string, out: string[], drop: boolean): void => {
    if (drop && s.stops.has(w)) return;
    out.push(ASCII_LETTERS.test(w) ? stemOf(w) : w);
  };
  /** A CJK run as configured: bigrams (pushCjk), the segmenter's words, or both. */
  const pushCjkRun = (run: string, out: string[], query: boolean): void => {
    if (s.cjkBigrams) pushCjk(run, out, query);
    if (s.cjkWords) for (const seg of segmentWords(segmenter!, run)) if (!s.cjkBigrams || Array.from(seg.segment).length > 2) out.push(seg.segment);
  };
  const pushWord: PushWord = (word, out, drop, query) => {
    if (ASCII_WORD.test(word)) {
      pushLatin(word, out, drop);
      return;
    }
    if (HAS_CJK.test(word)) {
      for (const m of word.matchAll(CJK_SPLIT)) {
        const part = m[0];
        if (IS_CJK_RUN.test(part)) pushCjkRun(part, out, query);
        else for (const w of part.matchAll(WORD)) pushWord(w[0], out, drop, query);
      }
      return;
    }
    if (LATIN_WORD.test(word)) {
      let w = foldLatin(word);
      if (POSSESSIVE.test(w)) w = w.slice(0, -2);
      w = w.replace(APOSTROPHES, '');
      if (w.length > 0) pushLatin(w, out, drop);
      return;
    }
    if (segmenter && UNSPACED.test(word)) {
      for (const seg of segmentWords(segmenter, word)) out.push(seg.segment);
      return;
    }
    out.push((FOLDED_SCRIPTS.test(word) ? foldMarks(word) : word).replace(APOSTROPHES, ''));
  };
  return pushWord;
}

/** A CJK run at `p0` of the text: its unigrams and bigrams as in pushCjk (documents), and/or its words, with offsets. */
function cjkRunSpans(run: string, p0: number, s: Settings, out: TermSpan[]): void {
  // Characters (units of Array.from) with their offsets.
  const chars = Array.from(run);
  const offs: number[] = [];
  let o = p0;
  for (const c of chars) {
    offs.push(o);
    o += c.length;
  }
  offs.push(o);
  if (s.cjkBigrams) {
    chars.forEach((c, i) => out.push({ term: c.toLowerCase(), start: offs[i], end: offs[i + 1] }));
    for (let i = 0; i + 1 < chars.length; i++) out.push({ term: (chars[i] + chars[i + 1]).toLowerCase(), start: offs[i], end: offs[i + 2] });
  }
  if (s.cjkWords) {
    for (const seg of segmentWords(segmenter!, run)) {
      if (s.cjkBigrams && Array.from(seg.segment).length <= 2) continue;
      out.push({ term: seg.segment.toLowerCase(), start: p0 + seg.index, end: p0 + seg.index + seg.segment.length });
    }
  }
}

/** Analyzer.termSpans over the word step. */
function spanPipeline(s: Settings, pushWord: PushWord): (text: string) => TermSpan[] {
  const termSpans = (text: string): TermSpan[] => {
    const out: TermSpan[] = [];
    const terms: string[] = [];
    // Words are found in the original text so offsets are its own; each is analysed as `analyze` would.
    for (const m of text.matchAll(WORD)) {
      const word = m[0];
      const at = m.index ?? 0;
      const lower = word.normalize('NFKC').toLowerCase();
      if (HAS_CJK.test(lower) && lower.length === word.length) {
        for (const part of word.matchAll(CJK_SPLIT)) {
          const p0 = at + (part.index ?? 0);
          if (IS_CJK_RUN.test(part[0])) cjkRunSpans(part[0], p0, s, out);
          else for (const t of termSpans(part[0])) out.push({ term: t.term, start: p0 + t.start, end: p0 + t.end });
        }
        continue;
      }
      terms.length = 0;
      pushWord(lower, terms, s.stopAt === 'both', false);
      for (const t of terms) out.push({ term: t, start: at, end: at + word.length });
    }
    return out;
  };
  return termSpans;
}

/** Builds an analyzer; defaults are the measured ones (see docs/eval.md). */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const s = settingsOf(options);
  const pushWord = wordPipeline(s);
  const analyze = (text: string, drop: boolean, query: boolean): string[] => {
    const out: string[] = [];
    const norm = text.normalize('NFKC').toLowerCase();
    for (const m of norm.matchAll(WORD)) pushWord(m[0], out, drop, query);
    return out;
  };
  return Object.freeze({
    id: s.id,
    termSpans: spanPipeline(s, pushWord),
    indexTerms: (text: string) => analyze(text, s.stopAt === 'both', false),
    queryTerms: (text: string) => {
      const terms = analyze(text, s.stops.size > 0, true);
      return terms.length > 0 || s.stops.size === 0 ? terms : analyze(text, false, true);
    },
  });
}
