/**
 * Hamming distances of a tile of TILE query bit-rows against n stored bit-rows, for the graph's
 * all-pairs neighbour search (knn.ts). The search's own scan kernel (vectors/wasm-kernels.ts) takes
 * one query per call and counts bits with `i8x16.popcnt`, which x86 lacks (the engine emulates it
 * with shuffles); here each stored row is loaded once for TILE queries held in locals, and bits are
 * counted with scalar `i64.popcnt` (one instruction on current CPUs). The module is generated for
 * one row width (words of 64 bits), unrolled, and needs no SIMD: MVP WebAssembly only.
 *
 *   tile(q, base, n, out, pitch)  out[k·pitch + i] (u16) = popcount(q_k XOR row_i), k < TILE, i < n
 *
 * `q` holds TILE rows of `words` × 8 bytes; rows at `base` are `words` × 8 bytes each.
 * `hammingTileJs` is the same computation in JS: the fallback, and the kernel's test reference.
 */
import { compileModule, I32, I64, leb, moduleBytes } from '../../util/wasm-module.ts';

/** Queries per kernel call: 4 rows × up to 8 words of query held in locals is still cheap. */
export const TILE = 4;

const get = (i: number) => [0x20, ...leb(i)];
const set = (i: number) => [0x21, ...leb(i)];
const i32c = (v: number) => [0x41, ...leb(v)]; // small non-negative constants only
const I32_ADD = 0x6a;
const I32_MUL = 0x6c;
const I32_GE_U = 0x4f;
const I64_LOAD = (offset: number) => [0x29, 0x03, ...leb(offset)];
const I64_XOR = 0x85;
const I64_POPCNT = 0x7b;
const I64_ADD = 0x7c;
const I32_WRAP = 0xa7;
const I32_STORE16 = [0x3b, 0x01, 0x00];

/** The kernel's bytes for rows of `words` 64-bit words. */
export function tileModuleBytes(words: number): Uint8Array<ArrayBuffer> {
  // Params 0 q, 1 base, 2 n, 3 out, 4 pitch; locals: 5 i, 6 p, then TILE out pointers, TILE×words query words, words row words.
  const [Q, BASE, N, OUT, PITCH, I, P] = [0, 1, 2, 3, 4, 5, 6];
  const outAt = (k: number) => 7 + k;
  const qw = (k: number, w: number) => 7 + TILE + k * words + w;
  const rw = (w: number) => 7 + TILE + TILE * words + w;
  const body: number[] = [...get(BASE), ...set(P)];
  for (let k = 0; k < TILE; k++) body.push(...get(OUT), ...get(PITCH), ...i32c(2 * k), I32_MUL, I32_ADD, ...set(outAt(k)));
  for (let k = 0; k < TILE; k++) for (let w = 0; w < words; w++) body.push(...get(Q), ...I64_LOAD(8 * (k * words + w)), ...set(qw(k, w)));
  body.push(0x02, 0x40, 0x03, 0x40); // block, loop
  body.push(...get(I), ...get(N), I32_GE_U, 0x0d, 1); // i >= n: exit
  for (let w = 0; w < words; w++) body.push(...get(P), ...I64_LOAD(8 * w), ...set(rw(w)));
  for (let k = 0; k < TILE; k++) {
    body.push(...get(outAt(k)));
    for (let w = 0; w < words; w++) {
      body.push(...get(rw(w)), ...get(qw(k, w)), I64_XOR, I64_POPCNT);
      if (w > 0) body.push(I64_ADD);
    }
    body.push(I32_WRAP, ...I32_STORE16);
    body.push(...get(outAt(k)), ...i32c(2), I32_ADD, ...set(outAt(k)));
  }
  body.push(...get(P), ...i32c(8 * words), I32_ADD, ...set(P));
  body.push(...get(I), ...i32c(1), I32_ADD, ...set(I));
  body.push(0x0c, 0, 0x0b, 0x0b); // br loop; end loop; end block
  const locals = [I32, I32, ...Array<number>(TILE).fill(I32), ...Array<number>(TILE * words + words).fill(I64)] as (typeof I32 | typeof I64)[];
  return moduleBytes([{ name: 'tile', params: [I32, I32, I32, I32, I32], results: [], locals, body }]);
}

export type TileKernel = (q: number, base: number, n: number, out: number, pitch: number) => void;

const modules = new Map<number, WebAssembly.Module | null>();

/** The kernel for rows of `words` words over `memory`, or undefined where WebAssembly is unavailable. */
export function tileKernel(words: number, memory: WebAssembly.Memory): TileKernel | undefined {
  let m = modules.get(words);
  if (m === undefined) modules.set(words, (m = compileModule(tileModuleBytes(words)) ?? null));
  if (!m) return undefined;
  try {
    return (new WebAssembly.Instance(m, { e: { m: memory } }).exports as { tile: TileKernel }).tile;
  } catch {
    return undefined;
  }
}

/** Bits set in a 32-bit word. */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The kernel in JS over the same bytes: `mem` is the memory the offsets (multiples of 4) point into. */
export function hammingTileJs(mem: ArrayBuffer, words: number, q: number, base: number, n: number, out: number, pitch: number): void {
  const w32 = words * 2;
  const u32 = new Int32Array(mem);
  const o16 = new Uint16Array(mem);
  const q0 = q >> 2;
  for (let i = 0, at = base >> 2; i < n; i++, at += w32) {
    for (let k = 0; k < TILE; k++) {
      let d = 0;
      for (let w = 0, qa = q0 + k * w32; w < w32; w++) d += popcount32(u32[qa + w] ^ u32[at + w]);
      o16[(out >> 1) + k * pitch + i] = d;
    }
  }
}
