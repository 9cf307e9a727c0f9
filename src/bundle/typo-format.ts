/**
 * Typo tolerance of a bundle: the corpus's own words in shards a query word one edit away from any
 * of them can find by reading at most four, built by `rcp-in-page index` (write-typos.ts) and read
 * on demand by the bundle store (a query word the index does not know: query/typos.ts decides).
 *
 *   typos-<hash>.bin           the listing of the shards below (the manifest names only this file,
 *                              so a first answer that corrects nothing reads none of it)
 *   typos/<n>-<hash>.bin       the words having a blocking key (typoKeys) that hashes to n, sorted,
 *                              with their occurrence counts over the documents' texts
 *
 * A word's keys are the first KEY_CHARS characters of itself and of each string one deletion
 * away from it that differ there (a symmetric-deletion neighbourhood, cut to its prefixes). Two
 * words one edit apart (insertion, deletion, substitution or transposition of neighbours) share a
 * deletion, hence that deletion's prefix, hence a key: so the shards of a query word's keys hold
 * every corpus word within one edit of it. A deletion past the prefix leaves the prefix as it
 * is, so a word has at most KEY_CHARS + 1 keys, whatever its length.
 */
import type { BundleShards } from './file-types.ts';

export type { BundleTypos } from './file-types.ts';
import { termShardOf } from './format.ts';

/** Characters of a key. Three keeps a shard's words few (no shard holds all of "co…") with ≤ 4 keys a word. */
export const KEY_CHARS = 3;


/** The listing file. */
export interface TypoCoreValue {
  shards: BundleShards;
  /** Distinct words in the shards (for measurements and the playground's status). */
  words: number;
}

/** One shard: words sorted, joined by '\n', and their counts in that order. */
export interface TypoShardValue {
  words: string;
  counts: Uint32Array;
}

/** A corpus word and how often the documents' texts hold it. */
export interface WordCount {
  word: string;
  count: number;
}

/** The blocking keys of `word` (lowercase): its prefix and those of its one-deletion strings, distinct. */
export function typoKeys(word: string): string[] {
  const chars = Array.from(word);
  const keys = new Set<string>([chars.slice(0, KEY_CHARS).join('')]);
  for (let i = 0; i < Math.min(KEY_CHARS, chars.length); i++) {
    keys.add([...chars.slice(0, i), ...chars.slice(i + 1, KEY_CHARS + 1)].join(''));
  }
  return [...keys];
}

/** The shard of a key (FNV-1a, as term shards). */
export const typoShardOf = (key: string, shards: number): number => termShardOf(key, shards);

export function encodeTypoShard(entries: readonly WordCount[]): TypoShardValue {
  const sorted = [...entries].sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  return { words: sorted.map((e) => e.word).join('\n'), counts: Uint32Array.from(sorted, (e) => e.count) };
}

export function decodeTypoShard(value: TypoShardValue): WordCount[] {
  if (typeof value?.words !== 'string' || !(value.counts instanceof Uint32Array)) throw new TypeError('not a typo shard');
  const words = value.words === '' ? [] : value.words.split('\n');
  if (words.length !== value.counts.length) throw new TypeError(`a typo shard of ${words.length} words has ${value.counts.length} counts`);
  return words.map((word, i) => ({ word, count: value.counts[i] }));
}
