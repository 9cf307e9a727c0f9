/**
 * Reads a bundle's typo shards on demand (typo-format.ts): the listing once, then for each asked
 * word the shards of its blocking keys (at most four), of which it keeps the words within one edit.
 * Like every bundle file, a shard that is missing or fails its hash rejects that request with a
 * BundleError naming its URL, and is fetched again by the next one.
 */
import { editDistance } from '../engine/query/transform.ts';
import type { NearWord } from '../engine/contracts.ts';
import type { BundleFiles } from './bundle-files.ts';
import { shardFile, type BundleFile } from './format.ts';
import { decodeTypoShard, typoKeys, typoShardOf, type BundleTypos, type TypoCoreValue, type TypoShardValue, type WordCount } from './typo-format.ts';

export class TypoReader {
  private core: Promise<TypoCoreValue> | undefined;
  private readonly shards = new Map<number, Promise<WordCount[]>>();

  constructor(
    private readonly files: BundleFiles,
    private readonly typos: BundleTypos,
  ) {}

  /** Every corpus word within one edit of each of `words` (lowercase), itself included when the corpus has it. */
  async near(words: readonly string[]): Promise<Map<string, NearWord[]>> {
    const core = await this.listing();
    const count = core.shards.bytes.length;
    const keys = new Map(words.map((w) => [w, [...new Set(typoKeys(w).map((k) => typoShardOf(k, count)))]] as const));
    const wanted = [...new Set([...keys.values()].flat())];
    // Every read settles before the request fails, so none is still under way for the next request to share.
    const settled = await Promise.allSettled(wanted.map((i) => this.shard(core, i)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const read = new Map(wanted.map((i, n) => [i, (settled[n] as PromiseFulfilledResult<WordCount[]>).value] as const));
    const out = new Map<string, NearWord[]>();
    for (const [word, at] of keys) {
      const found = new Map<string, NearWord>();
      for (const i of at) {
        for (const e of read.get(i)!) if (!found.has(e.word) && editDistance(word, e.word, 1) <= 1) found.set(e.word, e);
      }
      out.set(word, [...found.values()]);
    }
    return out;
  }

  /** The shard files, once the listing was read (the cache keeps them); none before. */
  async listedFiles(): Promise<BundleFile[]> {
    if (!this.core) return [];
    const core = await this.core.catch(() => undefined);
    return core ? core.shards.bytes.map((_, i) => shardFile('typos', core.shards, i)) : [];
  }

  private listing(): Promise<TypoCoreValue> {
    if (!this.core) {
      this.core = this.files.get<TypoCoreValue>(this.typos.core);
      this.core.catch(() => (this.core = undefined));
    }
    return this.core;
  }

  private shard(core: TypoCoreValue, i: number): Promise<WordCount[]> {
    let p = this.shards.get(i);
    if (!p) {
      p = this.files.get<TypoShardValue>(shardFile('typos', core.shards, i)).then(decodeTypoShard);
      p.catch(() => this.shards.delete(i));
      this.shards.set(i, p);
    }
    return p;
  }
}
