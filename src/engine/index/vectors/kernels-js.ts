/**
 * Plain-JS scan kernels: the fallback where WebAssembly SIMD is unavailable, and the reference the
 * WASM kernels are tested against. `dotsJs` is the faster choice in some engines (bench: kernels).
 */

/** out[i] = Σ q[j] · codes[i·stride + j] over j < dim (float query, so the result is exact). */
export function dotsJs(q: Float32Array, codes: Int8Array, n: number, stride: number, dim: number, out: Float32Array): void {
  for (let i = 0, at = 0; i < n; i++, at += stride) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += q[j] * codes[at + j];
    out[i] = s;
  }
}

/** Bits set in a 32-bit word. */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** out[i] = popcount(q XOR row i), rows of `bitStride` bytes (a multiple of 4) read as 32-bit words. */
export function hammingJs(q: Uint8Array, bits: Uint8Array, n: number, bitStride: number, out: Uint16Array): void {
  const words = bitStride >> 2;
  const qw = new Int32Array(q.buffer, q.byteOffset, words);
  const bw = new Int32Array(bits.buffer, bits.byteOffset, n * words);
  for (let i = 0, at = 0; i < n; i++, at += words) {
    let d = 0;
    for (let w = 0; w < words; w++) d += popcount32(qw[w] ^ bw[at + w]);
    out[i] = d;
  }
}
