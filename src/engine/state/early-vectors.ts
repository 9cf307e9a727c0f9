/**
 * Vectors embedded ahead of their segment's commit. Background embedding stores vectors one
 * segment per atomic commit, and one large document is one segment (a 30 MB book: ~33k chunks,
 * many minutes of encoder time), so chunks the person is searching for are embedded first
 * (embed-order.ts) and kept here, by chunk key, until their whole segment is done: dense search
 * scores them meanwhile (dense.ts `earlySearch`), and the segment's commit takes them without
 * embedding again. Chunk keys are never reused (a rewritten document gets new ones), so a vector
 * here always belongs to the text its key names, whatever merges renumber the segments.
 *
 * In memory only, like the float buffer a segment was embedded into before: a closed engine
 * embeds them again. At most one float vector per live chunk waiting for vectors.
 */
export class EarlyVectors {
  private readonly byKey = new Map<number, Float32Array>();

  get size(): number {
    return this.byKey.size;
  }

  get(key: number): Float32Array | undefined {
    return this.byKey.get(key);
  }

  has(key: number): boolean {
    return this.byKey.has(key);
  }

  put(key: number, vector: Float32Array): void {
    this.byKey.set(key, vector);
  }

  /** Drops the vectors of these chunks (their segment was committed with them). */
  delete(keys: Iterable<number>): void {
    for (const k of keys) this.byKey.delete(k);
  }

  clear(): void {
    this.byKey.clear();
  }
}
