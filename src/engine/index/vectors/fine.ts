/**
 * Second-stage precision for dense search. An int8 code rounds each component to max|x|/254, so
 * near-ties closer than ~4·10⁻⁴ in cosine are ordered by rounding noise (docs/bench.md: the exact
 * int8 scan tops out at recall@10 0.951 on 1M clustered vectors). Each chunk record therefore
 * carries the rounding residual of its row as int8 at a step 254 times finer; the best few dozen
 * of an int8-ranked list are read back from the store (chunk records, never resident in memory)
 * and rescored with x ≈ scale · (code + fine / 254).
 */
import type { FineCodes, FloatVectors, QuantizedVectors } from '../../contracts.ts';

/** Fine steps per code step: the residual of a rounded code lies in ±½ step, so ±127 covers it. */
const FINE = 254;

/** The residual of row r of `f` against its stored code (row r of `q`), or undefined for a zero vector. */
export function fineCodes(f: FloatVectors, q: QuantizedVectors, r: number): FineCodes | undefined {
  const s = q.scales[r];
  if (!(s > 0)) return undefined;
  const dim = f.dimension;
  const out = new Int8Array(dim);
  const step = s / FINE;
  for (let i = 0, at = r * dim, j = r * q.stride; i < dim; i++, at++, j++) {
    const c = Math.round((f.vectors[at] - q.codes[j] * s) / step);
    out[i] = c > 127 ? 127 : c < -127 ? -127 : c;
  }
  return { identity: f.identity, scale: s, codes: out };
}

/**
 * Cosine of `query` (norm `qNorm`) with row r refined by `fine`, or undefined when `fine` does not
 * belong to that row (another model wrote it, or the row was re-quantized since).
 */
export function fineCosine(q: QuantizedVectors, r: number, fine: FineCodes | undefined, query: Float32Array, qNorm: number): number | undefined {
  if (!fine || fine.identity !== q.identity || fine.scale !== q.scales[r] || fine.codes.length !== q.dimension) return undefined;
  let dot = 0;
  let nn = 0;
  const codes = q.codes;
  const f = fine.codes;
  for (let i = 0, j = r * q.stride; i < q.dimension; i++, j++) {
    const x = codes[j] + f[i] / FINE;
    dot += query[i] * x;
    nn += x * x;
  }
  return nn > 0 && qNorm > 0 ? dot / (Math.sqrt(nn) * qNorm) : 0;
}
