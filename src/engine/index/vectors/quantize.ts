/**
 * Float vectors → the stored int8 form (`QuantizedVectors`), and merging of stored forms.
 *
 * Each vector is scaled on its own (scale = max|x| / 127, code = round(x / scale)), so a vector's
 * codes use the whole int8 range whatever its magnitude. Cosine needs only the codes:
 * cos(q, code·scale) = q·code / (‖q‖·‖code‖), hence `invNorms`. The sign bits are those of the unit
 * vector minus the segment's mean unit vector (its center): without centering, the direction most
 * embeddings share would make many bits the same for every chunk.
 */
import type { FloatVectors, QuantizedVectors } from '../../contracts.ts';

/** Codes per row: the dimension rounded up to whole 16-byte SIMD lanes. */
export const codeStride = (dimension: number): number => Math.ceil(dimension / 16) * 16;
/** Bytes of sign bits per row: the dimension rounded up to whole 128-bit lanes. */
export const bitStrideOf = (dimension: number): number => Math.ceil(dimension / 128) * 16;

/** Quantizes n × dimension floats (row i = vector i). Zero vectors get zero codes and invNorm 0. */
export function quantize(f: FloatVectors): QuantizedVectors {
  const dim = f.dimension;
  const n = f.vectors.length / dim;
  const stride = codeStride(dim);
  const codes = new Int8Array(n * stride);
  const scales = new Float32Array(n);
  const invNorms = new Float32Array(n);
  const src = f.vectors;
  for (let r = 0; r < n; r++) {
    const at = r * dim;
    let max = 0;
    for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(src[at + i]));
    if (!(max > 0) || !Number.isFinite(max)) continue; // zero (or broken) vector: no direction
    const inv = 127 / max;
    let ss = 0;
    const to = r * stride;
    for (let i = 0; i < dim; i++) {
      const c = Math.round(src[at + i] * inv);
      codes[to + i] = c;
      ss += c * c;
    }
    scales[r] = max / 127;
    invNorms[r] = ss > 0 ? 1 / Math.sqrt(ss) : 0;
  }
  return withBits({ identity: f.identity, dimension: dim, stride, codes, scales, invNorms });
}

type Codes = Pick<QuantizedVectors, 'identity' | 'dimension' | 'stride' | 'codes' | 'scales' | 'invNorms'>;

/** Adds the segment's center and the rows' sign bits, both derived from the codes alone. */
export function withBits(q: Codes): QuantizedVectors {
  const { dimension: dim, stride, codes, invNorms } = q;
  const n = invNorms.length;
  const center = new Float32Array(dim);
  const acc = new Float64Array(dim);
  let live = 0;
  for (let r = 0; r < n; r++) {
    const w = invNorms[r];
    if (w === 0) continue;
    live++;
    for (let i = 0, j = r * stride; i < dim; i++, j++) acc[i] += codes[j] * w;
  }
  if (live > 0) for (let i = 0; i < dim; i++) center[i] = acc[i] / live;
  const bitStride = bitStrideOf(dim);
  const bits = new Uint8Array(n * bitStride);
  for (let r = 0; r < n; r++) signBits(codes, r * stride, invNorms[r], center, bits, r * bitStride);
  return { format: 2, ...q, center, bitStride, bits };
}

/** Sign bits of (row · w − center) into `out` at `to` (bit i of dimension i, little-endian bytes). */
export function signBits(row: ArrayLike<number>, from: number, w: number, center: Float32Array, out: Uint8Array, to: number): void {
  const dim = center.length;
  for (let i = 0; i < dim; i += 8) {
    let b = 0;
    for (let k = 0; k < 8 && i + k < dim; k++) if (row[from + i + k] * w - center[i + k] > 0) b |= 1 << k;
    out[to + (i >> 3)] = b;
  }
}

/**
 * The rows of several stored forms gathered into one: `parts[p].remap[r]` is the new row of row
 * r of part p (−1 drops it). Codes, scales and norms are copied as they are (no re-quantization,
 * so merging never drifts); the center and bits are recomputed for the merged rows.
 */
export function mergeQuantized(parts: { q: QuantizedVectors; remap: Int32Array }[], n: number): QuantizedVectors {
  const first = parts[0].q;
  const stride = first.stride;
  const codes = new Int8Array(n * stride);
  const scales = new Float32Array(n);
  const invNorms = new Float32Array(n);
  for (const { q, remap } of parts) {
    for (let r = 0; r < remap.length; r++) {
      const to = remap[r];
      if (to < 0) continue;
      codes.set(q.codes.subarray(r * stride, (r + 1) * stride), to * stride);
      scales[to] = q.scales[r];
      invNorms[to] = q.invNorms[r];
    }
  }
  return withBits({ identity: first.identity, dimension: first.dimension, stride, codes, scales, invNorms });
}

/** Row r as floats (code · scale): what the index holds for that chunk. */
export function dequantize(q: Pick<QuantizedVectors, 'dimension' | 'stride' | 'codes' | 'scales'>, r: number): Float32Array {
  const out = new Float32Array(q.dimension);
  const s = q.scales[r];
  for (let i = 0, j = r * q.stride; i < q.dimension; i++, j++) out[i] = q.codes[j] * s;
  return out;
}
