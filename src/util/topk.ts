/** Bounded selection of the best k items under a total order, O(n log k). */
export class TopK<T> {
  private readonly heap: T[] = [];

  /** `cmp(a,b) < 0` ⇔ a ranks before (is better than) b. */
  constructor(
    readonly k: number,
    private readonly cmp: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** The worst kept item once full (the admission threshold), else undefined. */
  get worst(): T | undefined {
    return this.heap.length >= this.k ? this.heap[0] : undefined;
  }

  push(item: T): void {
    const h = this.heap;
    if (this.k <= 0) return;
    if (h.length < this.k) {
      h.push(item);
      this.up(h.length - 1);
    } else if (this.cmp(item, h[0]) < 0) {
      h[0] = item;
      this.down(0);
    }
  }

  /** Kept items, best first. Empties the heap. */
  drain(): T[] {
    const out = this.heap.splice(0);
    return out.sort(this.cmp);
  }

  // The root holds the worst item: parent is "worse or equal" than its children.
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(h[i], h[p]) <= 0) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < n && this.cmp(h[l], h[w]) > 0) w = l;
      if (r < n && this.cmp(h[r], h[w]) > 0) w = r;
      if (w === i) return;
      [h[i], h[w]] = [h[w], h[i]];
      i = w;
    }
  }
}
