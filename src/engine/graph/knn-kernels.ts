/**
 * The three kernels of the graph's all-pairs neighbour search (knn.ts), each a WebAssembly module
 * emitted here with a JS twin (the fallback, and the reference the tests hold them to).
 *
 * `tile`: Hamming distances of a tile of TILE query bit-rows against n stored bit-rows. The dense
 * search's own scan kernel (vectors/wasm-kernels.ts) takes one query per call and counts bits with
 * `i8x16.popcnt`, which x86 lacks (the engine emulates it with shuffles); here each stored row is
 * loaded once for TILE queries held in locals, and bits are counted with scalar `i64.popcnt` (one
 * instruction on current CPUs). The module is generated for one row width (words of 64 bits),
 * unrolled, and needs no SIMD: MVP WebAssembly only.
 *
 *   tile(q, base, n, out, pitch)  out[k·pitch + i] (u16) = popcount(q_k XOR row_i), k < TILE, i < n
 *
 * `q` holds TILE rows of `words` × 8 bytes; rows at `base` are `words` × 8 bytes each.
 *
 * `shortlist`: one query's rows within the Hamming distance that holds `target` rows — a histogram
 * of the distances, the cut, and the rows at or under it (but `self`) listed; returns their count.
 *
 *   shortlist(d, n, hist, maxD, target, self, idx) → count, idx[0 .. count) the rows (i32)
 *
 * `gather`: exact int8 · int8 dot products of one query's codes with listed rows, with fixed-width
 * SIMD (sign-extend to i16, `i32x4.dot_i16x8_s`) — the shortlist's scores; a float loop over the
 * same rows took half the build.
 *
 *   gather(q, codes, stride, idx, count, out)  out[c] (i32) = Σ_j q[j] · codes[idx[c] · stride + j]
 */
import { compileModule, I32, I64, leb, moduleBytes, sleb, V128 } from '../../util/wasm-module.ts';

/** Queries per kernel call: each stored row is loaded once for this many (their words held in locals). */
export const TILE = 4;

const get = (i: number) => [0x20, ...leb(i)];
const set = (i: number) => [0x21, ...leb(i)];
const i32c = (v: number) => [0x41, ...sleb(v)]; // i32.const takes a signed LEB128 (leb would turn 64..127 negative)
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

/** The shortlist kernel's bytes (MVP WebAssembly). */
export function shortlistModuleBytes(): Uint8Array<ArrayBuffer> {
  const [D, N, HIST, MAXD, TARGET, SELF, IDX, I, CUT, CUM, COUNT, V] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const I32_LOAD16_U = [0x2f, 0x01, 0x00];
  const I32_LOAD = [0x28, 0x02, 0x00];
  const I32_STORE = [0x36, 0x02, 0x00];
  const [GT_U, LE_U, NE, AND, SHL] = [0x4b, 0x4d, 0x47, 0x71, 0x74];
  const inc = (l: number) => [...get(l), ...i32c(1), I32_ADD, ...set(l)];
  const dAt = [...get(D), ...get(I), ...i32c(1), SHL, I32_ADD, ...I32_LOAD16_U];
  const body = [
    // hist[0 .. maxD] = 0
    0x02, 0x40, 0x03, 0x40,
    ...get(I), ...get(MAXD), GT_U, 0x0d, 1,
    ...get(HIST), ...get(I), ...i32c(2), SHL, I32_ADD, ...i32c(0), ...I32_STORE,
    ...inc(I), 0x0c, 0, 0x0b, 0x0b,
    ...i32c(0), ...set(I),
    // hist[d[i]]++
    0x02, 0x40, 0x03, 0x40,
    ...get(I), ...get(N), I32_GE_U, 0x0d, 1,
    ...get(HIST), ...dAt, ...i32c(2), SHL, I32_ADD, 0x22, V, ...get(V), ...I32_LOAD, ...i32c(1), I32_ADD, ...I32_STORE,
    ...inc(I), 0x0c, 0, 0x0b, 0x0b,
    // cut: the smallest distance with at least `target` rows at or under it
    ...get(HIST), ...I32_LOAD, ...set(CUM),
    0x02, 0x40, 0x03, 0x40,
    ...get(CUM), ...get(TARGET), I32_GE_U, 0x0d, 1,
    ...get(CUT), ...get(MAXD), I32_GE_U, 0x0d, 1,
    ...inc(CUT),
    ...get(CUM), ...get(HIST), ...get(CUT), ...i32c(2), SHL, I32_ADD, ...I32_LOAD, I32_ADD, ...set(CUM),
    0x0c, 0, 0x0b, 0x0b,
    // the rows at or under the cut, but self
    ...i32c(0), ...set(I),
    0x02, 0x40, 0x03, 0x40,
    ...get(I), ...get(N), I32_GE_U, 0x0d, 1,
    ...dAt, ...get(CUT), LE_U, ...get(I), ...get(SELF), NE, AND,
    0x04, 0x40, // if
    ...get(IDX), ...get(COUNT), ...i32c(2), SHL, I32_ADD, ...get(I), ...I32_STORE,
    ...inc(COUNT),
    0x0b,
    ...inc(I), 0x0c, 0, 0x0b, 0x0b,
    ...get(COUNT),
  ];
  return moduleBytes([{ name: 'shortlist', params: [I32, I32, I32, I32, I32, I32, I32], results: [I32], locals: [I32, I32, I32, I32, I32], body }]);
}

export type ShortlistKernel = (d: number, n: number, hist: number, maxD: number, target: number, self: number, idx: number) => number;

let shortlistCompiled: WebAssembly.Module | null | undefined;

/** The shortlist kernel over `memory`, or undefined where WebAssembly is unavailable. */
export function shortlistKernel(memory: WebAssembly.Memory): ShortlistKernel | undefined {
  if (shortlistCompiled === undefined) shortlistCompiled = compileModule(shortlistModuleBytes()) ?? null;
  if (!shortlistCompiled) return undefined;
  try {
    return (new WebAssembly.Instance(shortlistCompiled, { e: { m: memory } }).exports as { shortlist: ShortlistKernel }).shortlist;
  } catch {
    return undefined;
  }
}

/** The shortlist kernel in JS over the same bytes (`d` even, `hist` and `idx` multiples of 4). */
export function shortlistJs(mem: ArrayBuffer, d: number, n: number, hist: number, maxD: number, target: number, self: number, idx: number): number {
  const dist = new Uint16Array(mem, d, n);
  const h = new Uint32Array(mem, hist, maxD + 1);
  const out = new Int32Array(mem, idx, n);
  h.fill(0);
  for (let i = 0; i < n; i++) h[dist[i]]++;
  let cut = 0;
  for (let cum = h[0]; cum < target && cut < maxD; ) cum += h[++cut];
  let count = 0;
  for (let i = 0; i < n; i++) if (dist[i] <= cut && i !== self) out[count++] = i;
  return count;
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

const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];
const V_LOAD = simd(0x00, 0x04, 0x00); // align 2^4, offset 0
const I32_SPLAT = simd(0x11);
const I32_LANE = (l: number) => simd(0x1b, l);
const I32X4_ADD = simd(0xae);
const I16_EXT_LO_S8 = simd(0x87);
const I16_EXT_HI_S8 = simd(0x88);
const I32_DOT_I16 = simd(0xba);
const I32_LOAD = [0x28, 0x02, 0x00];
const I32_STORE = [0x36, 0x02, 0x00];
const I32_LT_U = 0x49;
const I32_SHL = 0x74;

/** The gather kernel's bytes (strides are multiples of 16). */
export function gatherModuleBytes(): Uint8Array<ArrayBuffer> {
  // Params 0 q, 1 codes, 2 stride, 3 idx, 4 count, 5 out; locals 6 c, 7 p, 8 j, 9 acc, 10 a, 11 b.
  const [Q, CODES, STRIDE, IDX, COUNT, OUT, C, P, J, ACC, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const body: number[] = [
    0x02, 0x40, 0x03, 0x40, // block, loop over the listed rows
    ...get(C), ...get(COUNT), I32_GE_U, 0x0d, 1,
    ...get(CODES), ...get(IDX), ...get(C), ...i32c(2), I32_SHL, I32_ADD, ...I32_LOAD, ...get(STRIDE), I32_MUL, I32_ADD, ...set(P),
    ...i32c(0), ...I32_SPLAT, ...set(ACC),
    ...i32c(0), ...set(J),
    0x03, 0x40, // loop over 16-byte lanes
    ...get(P), ...get(J), I32_ADD, ...V_LOAD, ...set(A),
    ...get(Q), ...get(J), I32_ADD, ...V_LOAD, ...set(B),
    ...get(ACC),
    ...get(A), ...I16_EXT_LO_S8, ...get(B), ...I16_EXT_LO_S8, ...I32_DOT_I16, ...I32X4_ADD,
    ...get(A), ...I16_EXT_HI_S8, ...get(B), ...I16_EXT_HI_S8, ...I32_DOT_I16, ...I32X4_ADD,
    ...set(ACC),
    ...get(J), ...i32c(16), I32_ADD, 0x22, J, ...get(STRIDE), I32_LT_U, 0x0d, 0, // tee j; j < stride: again
    0x0b,
    ...get(OUT), ...get(C), ...i32c(2), I32_SHL, I32_ADD,
    ...get(ACC), ...I32_LANE(0), ...get(ACC), ...I32_LANE(1), I32_ADD, ...get(ACC), ...I32_LANE(2), I32_ADD, ...get(ACC), ...I32_LANE(3), I32_ADD,
    ...I32_STORE,
    ...get(C), ...i32c(1), I32_ADD, ...set(C),
    0x0c, 0, 0x0b, 0x0b,
  ];
  return moduleBytes([{ name: 'gather', params: [I32, I32, I32, I32, I32, I32], results: [], locals: [I32, I32, I32, V128, V128, V128], body }]);
}

export type GatherKernel = (q: number, codes: number, stride: number, idx: number, count: number, out: number) => void;

let gatherCompiled: WebAssembly.Module | null | undefined;

/** The gather kernel over `memory`, or undefined where WebAssembly SIMD is unavailable. */
export function gatherKernel(memory: WebAssembly.Memory): GatherKernel | undefined {
  if (gatherCompiled === undefined) gatherCompiled = compileModule(gatherModuleBytes()) ?? null;
  if (!gatherCompiled) return undefined;
  try {
    return (new WebAssembly.Instance(gatherCompiled, { e: { m: memory } }).exports as { gather: GatherKernel }).gather;
  } catch {
    return undefined;
  }
}

/** The gather kernel in JS over the same bytes (offsets of `idx` and `out` multiples of 4). */
export function gatherJs(mem: ArrayBuffer, q: number, codes: number, stride: number, idx: number, count: number, out: number): void {
  const i8 = new Int8Array(mem);
  const i32 = new Int32Array(mem);
  for (let c = 0; c < count; c++) {
    const at = codes + i32[(idx >> 2) + c] * stride;
    let s = 0;
    for (let j = 0; j < stride; j++) s += i8[q + j] * i8[at + j];
    i32[(out >> 2) + c] = s;
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
