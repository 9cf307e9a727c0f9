/**
 * LEB128 variable-length unsigned integers: 7 bits a byte, the high bit set on all but the last.
 * Postings, chunk keys and document ordinals are small deltas, so most take one byte; the bundle's
 * gzip then squeezes the runs out (a 10,000-page site's chunk tables fit in a few KB).
 */

/** Appends varints to a growing byte buffer. */
export class VarintWriter {
  private buf = new Uint8Array(256);
  private n = 0;

  uint(v: number): void {
    if (!(v >= 0) || !Number.isSafeInteger(v)) throw new RangeError(`varint: ${v} is not an unsigned integer`);
    if (this.n + 8 > this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    while (v >= 0x80) {
      this.buf[this.n++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.n++] = v;
  }

  /** A signed value, zigzag-coded (0, −1, 1, −2, … → 0, 1, 2, 3, …). */
  int(v: number): void {
    this.uint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  get length(): number {
    return this.n;
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

/** Reads varints from `bytes` starting at `at`; throws on a value cut short (a damaged file). */
export class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public at = 0,
  ) {}

  uint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.bytes.length) throw new RangeError('varint: data cut short');
      const b = this.bytes[this.at++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }
}

/** `values` as deltas from the previous one (the first from 0), zigzag-coded. */
export function encodeDeltas(values: ArrayLike<number>): Uint8Array {
  const w = new VarintWriter();
  let last = 0;
  for (let i = 0; i < values.length; i++) {
    w.int(values[i] - last);
    last = values[i];
  }
  return w.bytes();
}

/** The `n` values `encodeDeltas` wrote, into `out`. */
export function decodeDeltas<T extends Uint32Array | Int32Array>(bytes: Uint8Array, out: T): T {
  const r = new VarintReader(bytes);
  let last = 0;
  for (let i = 0; i < out.length; i++) out[i] = last += r.int();
  return out;
}
