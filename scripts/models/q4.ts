/**
 * ggml Q4_0, the 4-bit format of E5S1 (scripts/models/e5s1.ts): along each row, every 32 values are
 * one block of an fp16 scale d and 16 bytes, byte j holding value j (low nibble) and value j + 16
 * (high nibble); value = d·(nibble − 8). `quantizeQ4` uses ggml's rule (d = the block's value of
 * largest magnitude / −8), so the dequantised values of a Q4_0 tensor quantise back to the same blocks.
 */
import { f16 } from './safetensors.ts';
import type { Q4Blocks } from './safetensors.ts';

import { Q4_BLOCK } from '../../src/models/encoder-runtime/q4.ts';
export { Q4_BLOCK };

export function dequantizeQ4(blocks: Q4Blocks): Float32Array {
  const out = new Float32Array(blocks.scales.length * Q4_BLOCK);
  for (let b = 0; b < blocks.scales.length; b++) {
    const d = f16(blocks.scales[b]);
    for (let j = 0; j < 16; j++) {
      const byte = blocks.codes[b * 16 + j];
      out[b * 32 + j] = ((byte & 15) - 8) * d;
      out[b * 32 + j + 16] = ((byte >> 4) - 8) * d;
    }
  }
  return out;
}

const scratch = new DataView(new ArrayBuffer(4));
/** number → IEEE half-precision bits, round to nearest even (normal and subnormal range). */
export function toF16(x: number): number {
  scratch.setFloat32(0, x);
  const bits = scratch.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const man = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = man | 0x800000;
    const shift = 14 - e;
    const half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (man >>> 13);
  const rest = man & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

/** float32 values (a multiple of 32) → Q4_0 blocks, ggml's rule. */
export function quantizeQ4(values: Float32Array): Q4Blocks {
  if (values.length % Q4_BLOCK) throw new Error(`Q4_0: ${values.length} values is not a multiple of ${Q4_BLOCK}`);
  const n = values.length / Q4_BLOCK;
  const scales = new Uint16Array(n);
  const codes = new Uint8Array(n * 16);
  for (let b = 0; b < n; b++) {
    let max = 0;
    for (let j = 0; j < 32; j++) {
      const v = values[b * 32 + j];
      if (Math.abs(v) > Math.abs(max)) max = v;
    }
    scales[b] = toF16(max / -8);
    const d = f16(scales[b]);
    const id = d ? 1 / d : 0;
    const q = (v: number) => Math.min(15, Math.max(0, Math.trunc(v * id + 8.5)));
    for (let j = 0; j < 16; j++) codes[b * 16 + j] = q(values[b * 32 + j]) | (q(values[b * 32 + j + 16]) << 4);
  }
  return { blockSize: 32, scales, codes };
}
