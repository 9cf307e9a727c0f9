/**
 * Phrase-search sets built from the tatoeba sentences, for what the cross-lingual dev sets cannot
 * show about lexical analysis:
 *   mixed-<lang>  the 9,000 sentences of nine languages (English and the eight tatoeba languages)
 *                 in one corpus, 300 keyword queries (one or two words) from each language's
 *                 sentences: does a query match its language's documents in a mixed index?
 *   cmn|jpn-phrase-words|chars  monolingual Chinese and Japanese, to measure CJK segmentation.
 *
 * Monolingual Chinese and Japanese phrase-search sets for measuring CJK word segmentation
 * (analyzer `cjk`: bigrams, Intl.Segmenter words, both). The dev sets hold no monolingual CJK
 * collection, and sparse search across languages (tatoeba X→eng) never matches a Han term to an
 * English one, so segmentation cannot move those; these sets are built from the same tatoeba
 * sentences instead: the corpus is the 1,000 Chinese (Japanese) sentences of tatoeba-eng-cmn
 * (-jpn), each query a phrase taken from one of them, and every sentence that contains the phrase
 * verbatim is relevant (a bigram match that is not the phrase counts against bigrams, a phrase the
 * segmenter cuts differently in the query than in the sentence counts against words).
 *
 * Two query kinds, because each favours one side:
 *   words — one or two consecutive Intl.Segmenter words of the sentence (≥ 2 characters), what a
 *           person types as a keyword;
 *   chars — any 2–4 consecutive CJK characters (not aligned to words).
 *
 * Relevant: every sentence containing the phrase (as whole words where words are spaced).
 *
 *   node --import tsx scripts/make-phrase-sets.ts [--out .cache/eval-phrases] [--queries 500] [--seed 1]
 * then: npm run eval -- .cache/eval-phrases/* --mode sparse [--cjk bigrams|words|both]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArgs } from '../tools/lib/args.ts';
import { rng } from '../src/util/prng.ts';

const ROOT = join(import.meta.dirname, '..');
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30fc]+$/u;

const { values } = cliArgs({
  usage: 'node --import tsx scripts/make-phrase-sets.ts [--out .cache/eval-phrases] [--queries 500] [--seed 1]',
  options: { out: { type: 'string' }, queries: { type: 'string' }, seed: { type: 'string' } },
});
const out = values.out ?? join(ROOT, '.cache', 'eval-phrases');
const wanted = Number(values.queries ?? 500);
const seed = Number(values.seed ?? 1);

type Sentence = { _id: string; text: string };
const readSentences = (set: string, file: string): Sentence[] =>
  readFileSync(join(ROOT, '..', 'shared', 'eval', set, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Sentence);

function write(dir: string, corpus: Sentence[], queries: Sentence[], qrels: string[]): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify({ _id: d._id, title: '', text: d.text })).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), ['query-id\tcorpus-id\tscore', ...qrels].join('\n') + '\n');
  process.stderr.write(`${dir}: ${queries.length} queries, ${(qrels.length / queries.length).toFixed(2)} relevant per query\n`);
}

/** Queries: phrases `pick` takes from random sentences of `from`; relevant: every sentence of `corpus` containing the phrase. */
function phraseQueries(from: Sentence[], corpus: Sentence[], pick: (text: string, r: () => number) => string | undefined, n: number): { queries: Sentence[]; qrels: string[] } {
  const norm = (t: string) => t.normalize('NFKC').toLowerCase();
  const r = rng(seed);
  const queries: Sentence[] = [];
  const qrels: string[] = [];
  const seen = new Set<string>();
  const normed = corpus.map((d) => norm(d.text));
  for (let tries = 0; queries.length < n && tries < n * 20; tries++) {
    const phrase = pick(from[Math.floor(r() * from.length)].text, r);
    if (!phrase || seen.has(norm(phrase))) continue;
    seen.add(norm(phrase));
    const id = `q${queries.length}`;
    queries.push({ _id: id, text: phrase });
    // Whole-word containment for spaced scripts (so "art" is not relevant to "party"), substring for CJK.
    const p = norm(phrase);
    const wordRe = CJK.test(phrase) ? undefined : new RegExp(`(^|[^\\p{L}\\p{N}\\p{M}])${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{N}\\p{M}])`, 'u');
    normed.forEach((t, i) => {
      if (wordRe ? wordRe.test(t) : t.includes(p)) qrels.push(`${id}\t${corpus[i]._id}\t1`);
    });
  }
  return { queries, qrels };
}

/** One or two consecutive word-like segments of `text` (≥ 2 characters), as a keyword query. */
const wordPhrase = (segmenter: Intl.Segmenter) => (text: string, r: () => number): string | undefined => {
  const words = [...segmenter.segment(text)].filter((s) => s.isWordLike && !/^\p{N}+$/u.test(s.segment));
  const picks = words.flatMap((w, i) => {
    const next = words[i + 1];
    const gap = next ? text.slice(w.index + w.segment.length, next.index) : undefined;
    const two = next && (gap === '' || gap === ' ') ? [w.segment + gap + next.segment] : [];
    return [w.segment, ...two].filter((p) => Array.from(p).length >= 2);
  });
  return picks.length ? picks[Math.floor(r() * picks.length)] : undefined;
};

// Every language in one index: does a query in each language find its own language's sentences
// among 9,000 in nine languages (analysis without per-language rules: folding, Porter on a–z words only)?
const LANGS = [['eng', 'en'], ['deu', 'de'], ['fra', 'fr'], ['spa', 'es'], ['rus', 'ru'], ['cmn', 'zh'], ['jpn', 'ja'], ['ara', 'ar'], ['hin', 'hi']] as const;
const byLang = new Map<string, Sentence[]>(LANGS.map(([l]) => [l, (l === 'eng' ? readSentences('tatoeba-deu-eng', 'corpus.jsonl') : readSentences(`tatoeba-eng-${l}`, 'corpus.jsonl')).map((d) => ({ _id: `${l}-${d._id}`, text: d.text }))]));
const mixed = [...byLang.values()].flat();
for (const [lang, locale] of LANGS) {
  const { queries, qrels } = phraseQueries(byLang.get(lang)!, mixed, wordPhrase(new Intl.Segmenter(locale, { granularity: 'word' })), Math.min(wanted, 300));
  write(join(out, `mixed-${lang}`), mixed, queries, qrels);
}

for (const [lang, locale] of [['cmn', 'zh'], ['jpn', 'ja']] as const) {
  const sentences = readSentences(`tatoeba-eng-${lang}`, 'corpus.jsonl');
  const segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
  const phrases = {
    words: (text: string, r: () => number): string | undefined => {
      const words = [...segmenter.segment(text)].filter((s) => s.isWordLike && CJK.test(s.segment));
      // Consecutive in the sentence: the second word must start where the first ends.
      const picks = words.flatMap((w, i) => {
        const next = words[i + 1];
        const two = next && next.index === w.index + w.segment.length ? [w.segment + next.segment] : [];
        return [w.segment, ...two].filter((p) => Array.from(p).length >= 2);
      });
      return picks.length ? picks[Math.floor(r() * picks.length)] : undefined;
    },
    chars: (text: string, r: () => number): string | undefined => {
      const runs = (text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30fc]{2,}/gu) ?? []).map((x) => Array.from(x));
      if (!runs.length) return undefined;
      const run = runs[Math.floor(r() * runs.length)];
      const len = Math.min(run.length, 2 + Math.floor(r() * 3));
      const at = Math.floor(r() * (run.length - len + 1));
      return run.slice(at, at + len).join('');
    },
  };
  for (const [kind, pick] of Object.entries(phrases)) {
    const { queries, qrels } = phraseQueries(sentences, sentences, pick, wanted);
    write(join(out, `${lang}-phrase-${kind}`), sentences, queries, qrels);
  }
}
