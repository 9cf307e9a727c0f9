/**
 * The typo shards of a bundle (typo-format.ts), from the documents' own words: every word of
 * letters the analyser turns into one term (stopwords aside: never a correction), with how often
 * the texts hold it (words query/typos.ts `typoWord` accepts), filed under each of its blocking keys.
 */
import type { Analyzer } from '../engine/analysis/analyzer.ts';
import { NLTK_STOPWORDS } from '../engine/analysis/stopwords.ts';
import { typoWord } from '../engine/query/typos.ts';
import type { BundleFile } from './file-types.ts';
import { SHARD_HASH, shardsOf } from './format.ts';
import { encodeTypoShard, typoKeys, typoShardOf, type BundleTypos, type TypoCoreValue, type WordCount } from './typo-format.ts';

/**
 * About this many bytes of words (before gzip) per shard: a correction reads up to four shards per
 * word, so ≈ 4 × this (≈ 2 KB each gzipped) plus the listing, once per page visit.
 */
export const TYPO_SHARD_BYTES = 4_000;

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;

/** The words of `texts` typo tolerance may propose, with their counts (most frequent first, then by word). */
export function corpusWords(texts: Iterable<string>, analyzer: Analyzer): WordCount[] {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const m of text.normalize('NFKC').toLowerCase().matchAll(WORD)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  const stops = new Set(NLTK_STOPWORDS);
  const out: WordCount[] = [];
  for (const [word, count] of counts) {
    if (!typoWord(word) || stops.has(word) || analyzer.indexTerms(word).length !== 1) continue;
    out.push({ word, count });
  }
  return out.sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : 1));
}

/** Writes the shards of `words` and their listing through `add` (the bundle writer's); undefined for no words. */
export async function writeTypos(
  add: (name: string, value: unknown, digits: number) => Promise<BundleFile>,
  words: readonly WordCount[],
): Promise<BundleTypos | undefined> {
  if (words.length === 0) return undefined;
  const keyed = words.map((w) => ({ w, keys: typoKeys(w.word) }));
  let total = 0;
  for (const { w, keys } of keyed) total += keys.length * (w.word.length + 3);
  const count = Math.max(1, Math.ceil(total / TYPO_SHARD_BYTES));
  const shards: Map<string, WordCount>[] = Array.from({ length: count }, () => new Map());
  for (const { w, keys } of keyed) for (const k of keys) shards[typoShardOf(k, count)].set(w.word, w);
  const files: BundleFile[] = [];
  for (const [i, s] of shards.entries()) files.push(await add(`typos/${i}`, encodeTypoShard([...s.values()]), SHARD_HASH));
  const core: TypoCoreValue = { shards: shardsOf(files), words: words.length };
  return { core: await add('typos', core, 16) };
}
