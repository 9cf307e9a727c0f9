/**
 * An embedder with a disk cache of document vectors keyed by the embedded text, per model
 * identity: `rcp-in-page index` re-embeds only the passages of changed pages, and `npm run eval`
 * embeds each collection once. Queries are embedded fresh unless `queries` is set (the eval: a grid
 * asks for the same 1,000 tatoeba queries once per configuration); their keys are kept apart from
 * documents' because the model's prefix differs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../src/engine/contracts.ts';

export class CachedEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly normalized: boolean;
  minSimilarity?: number;
  readonly fusionWeights?: Embedder['fusionWeights'];
  readonly crossLingual?: boolean;
  private readonly cache = new Map<string, Float32Array>();
  /** Keys asked for since construction (what `save({ prune: true })` keeps). */
  private readonly used = new Set<string>();
  private readonly path: string;
  private dirty = false;
  /** Texts actually sent to the model (cache misses). */
  embedded = 0;

  private lastSave = Date.now();

  /**
   * `saveEveryMs`: also write the cache after an embedding call when this long has passed since the
   * last write, so a run stopped mid-collection (a 12-layer encoder on a loaded machine embeds for
   * an hour) resumes from there.
   */
  constructor(readonly inner: Embedder, dir: string, private readonly o: { queries?: boolean; saveEveryMs?: number } = {}) {
    this.identity = inner.identity;
    this.dimension = inner.dimension;
    this.normalized = inner.normalized;
    this.minSimilarity = inner.minSimilarity;
    this.fusionWeights = inner.fusionWeights;
    this.crossLingual = inner.crossLingual;
    this.path = join(dir, `${inner.identity.replace(/[^A-Za-z0-9_.-]+/g, '_')}.bin`);
    if (existsSync(this.path)) {
      const buf = readFileSync(this.path);
      const headerLen = buf.readUInt32LE(0);
      const keys = JSON.parse(buf.subarray(4, 4 + headerLen).toString('utf8')) as string[];
      const data = new Float32Array(buf.buffer.slice(buf.byteOffset + 4 + headerLen, buf.byteOffset + buf.length));
      keys.forEach((k, i) => this.cache.set(k, data.slice(i * this.dimension, (i + 1) * this.dimension)));
    }
  }

  ready(): boolean {
    return this.inner.ready?.() ?? true;
  }

  async embed(texts: string[], kind: 'query' | 'document', signal?: AbortSignal): Promise<Float32Array[]> {
    if (kind === 'query' && !this.o.queries) return this.inner.embed(texts, kind, signal);
    const keys = texts.map((t) => (kind === 'query' ? 'q:' : '') + createHash('sha1').update(t).digest('hex'));
    for (const k of keys) this.used.add(k);
    const todo = texts.map((_, i) => i).filter((i) => !this.cache.has(keys[i]));
    if (todo.length) {
      const vs = await this.inner.embed(todo.map((i) => texts[i]), kind, signal);
      todo.forEach((i, j) => this.cache.set(keys[i], vs[j]));
      this.embedded += todo.length;
      this.dirty = true;
      if (this.o.saveEveryMs !== undefined && Date.now() - this.lastSave >= this.o.saveEveryMs) this.save();
    }
    return keys.map((k) => this.cache.get(k)!);
  }

  /** Writes the cache (atomically); `prune` keeps only the vectors asked for since construction. */
  save(o: { prune?: boolean } = {}): void {
    const keys = o.prune ? [...this.cache.keys()].filter((k) => this.used.has(k)) : [...this.cache.keys()];
    if (!this.dirty && keys.length === this.cache.size) return;
    mkdirSync(join(this.path, '..'), { recursive: true });
    const header = Buffer.from(JSON.stringify(keys), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(header.length);
    const data = new Float32Array(keys.length * this.dimension);
    keys.forEach((k, i) => data.set(this.cache.get(k)!, i * this.dimension));
    writeFileSync(`${this.path}.tmp`, Buffer.concat([len, header, Buffer.from(data.buffer)]));
    renameSync(`${this.path}.tmp`, this.path);
    this.dirty = false;
    this.lastSave = Date.now();
  }
}
