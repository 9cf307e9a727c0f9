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
 * SIMD (sign-extend to i16, `i32x4.dot_i16x8_s`: the scan's `dots` body, vectors/wasm-kernels.ts
 * `rowDot`) — the shortlist's scores; a float loop over the same rows took half the build.
 *
 *   gather(q, codes, stride, idx, count, out)  out[c] (i32) = Σ_j q[j] · codes[idx[c] · stride + j]
 *
 * All three are written with the `Code` builder (util/wasm-code.ts); tile and shortlist emit the
 * bytes they did as raw opcodes (test/util/kernel-bytes.test.ts).
 */
import { Code } from '../../util/wasm-code.ts';
import { ModuleCache } from '../../util/wasm-compile.ts';
import { I32, moduleBytes } from '../../util/wasm-module.ts';
import { rowDot } from '../index/vectors/wasm-kernels.ts';

/** Queries per kernel call: each stored row is loaded once for this many (their words held in locals). */
export const TILE = 4;

/** The three modules (a tile module per row width in words), each compiled once, synchronously: a few hundred bytes to 4 KB. */
const modules = new ModuleCache<'shortlist' | 'gather' | number>((key) => (key === 'shortlist' ? shortlistModuleBytes() : key === 'gather' ? gatherModuleBytes() : tileModuleBytes(key)));

/** The kernel's bytes for rows of `words` 64-bit words. */
export function tileModuleBytes(words: number): Uint8Array<ArrayBuffer> {
  const c = new Code('tile', [I32, I32, I32, I32, I32]);
  const [Q, BASE, N, OUT, PITCH] = [0, 1, 2, 3, 4];
  const [i, p] = c.locals('i32', 2);
  const outAt = c.locals('i32', TILE);
  const qw = Array.from({ length: TILE }, () => c.locals('i64', words));
  const rw = c.locals('i64', words);
  c.get(BASE).set(p);
  outAt.forEach((o, k) => c.get(OUT).get(PITCH).i32(2 * k).op('i32_mul').op('i32_add').set(o));
  qw.forEach((q, k) => q.forEach((l, w) => c.get(Q).i64Load(8 * (k * words + w)).set(l)));
  c.until(() => c.get(i).get(N).op('i32_ge_u'), () => {
    rw.forEach((l, w) => c.get(p).i64Load(8 * w).set(l));
    outAt.forEach((o, k) => {
      c.get(o);
      for (let w = 0; w < words; w++) {
        c.get(rw[w]).get(qw[k][w]).op('i64_xor').op('i64_popcnt');
        if (w > 0) c.op('i64_add');
      }
      c.op('i32_wrap_i64').i32Store16();
      c.addTo(o, 2);
    });
    c.addTo(p, 8 * words);
    c.addTo(i, 1);
  });
  return moduleBytes([c.fn()]);
}

/** The shortlist kernel's bytes (MVP WebAssembly). */
export function shortlistModuleBytes(): Uint8Array<ArrayBuffer> {
  const c = new Code('shortlist', [I32, I32, I32, I32, I32, I32, I32], [I32]);
  const [D, N, HIST, MAXD, TARGET, SELF, IDX] = [0, 1, 2, 3, 4, 5, 6];
  const [i, cut, cum, count, v] = c.locals('i32', 5);
  /** Pushes the address of element `at` (a local) of the u32 array at local `base`. */
  const u32At = (base: number, at: number) => c.get(base).get(at).i32(2).op('i32_shl').op('i32_add');
  /** Pushes d[i] (u16). */
  const dAt = () => c.get(D).get(i).i32(1).op('i32_shl').op('i32_add').i32Load16u();
  // hist[0 .. maxD] = 0
  c.until(() => c.get(i).get(MAXD).op('i32_gt_u'), () => {
    u32At(HIST, i).i32(0).i32Store();
    c.addTo(i, 1);
  });
  c.i32(0).set(i);
  // hist[d[i]]++
  c.until(() => c.get(i).get(N).op('i32_ge_u'), () => {
    c.get(HIST);
    dAt();
    c.i32(2).op('i32_shl').op('i32_add').tee(v).get(v).i32Load().i32(1).op('i32_add').i32Store();
    c.addTo(i, 1);
  });
  // cut: the smallest distance with at least `target` rows at or under it
  c.get(HIST).i32Load().set(cum);
  c.block(() => {
    c.loop(() => {
      c.get(cum).get(TARGET).op('i32_ge_u').brIf(1);
      c.get(cut).get(MAXD).op('i32_ge_u').brIf(1);
      c.addTo(cut, 1);
      c.get(cum);
      u32At(HIST, cut).i32Load().op('i32_add').set(cum);
      c.br(0);
    });
  });
  // the rows at or under the cut, but self
  c.i32(0).set(i);
  c.until(() => c.get(i).get(N).op('i32_ge_u'), () => {
    dAt();
    c.get(cut).op('i32_le_u').get(i).get(SELF).op('i32_ne').op('i32_and');
    c.if(() => {
      u32At(IDX, count).get(i).i32Store();
      c.addTo(count, 1);
    });
    c.addTo(i, 1);
  });
  c.get(count);
  return moduleBytes([c.fn()]);
}

export type ShortlistKernel = (d: number, n: number, hist: number, maxD: number, target: number, self: number, idx: number) => number;

/** The shortlist kernel over `memory`, or undefined where WebAssembly is unavailable. */
export function shortlistKernel(memory: WebAssembly.Memory): ShortlistKernel | undefined {
  return modules.instance<{ shortlist: ShortlistKernel }>('shortlist', memory)?.shortlist;
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

/** The kernel for rows of `words` words over `memory`, or undefined where WebAssembly is unavailable. */
export function tileKernel(words: number, memory: WebAssembly.Memory): TileKernel | undefined {
  return modules.instance<{ tile: TileKernel }>(words, memory)?.tile;
}

/** The gather kernel's bytes (strides are multiples of 16): `rowDot` (the scan's `dots` body) over the listed rows. */
export function gatherModuleBytes(): Uint8Array<ArrayBuffer> {
  const c = new Code('gather', [I32, I32, I32, I32, I32, I32]);
  const [Q, CODES, STRIDE, IDX, COUNT, OUT] = [0, 1, 2, 3, 4, 5];
  const [i, p, j] = c.locals('i32', 3);
  const [acc, codes, q] = c.locals('v128', 3);
  /** Pushes the address of element i of the u32 array at local `base`. */
  const at = (base: number) => c.get(base).get(i).i32(2).op('i32_shl').op('i32_add');
  c.forRange(i, () => c.i32(0), () => c.get(COUNT), 1, () => {
    c.get(CODES);
    at(IDX).i32Load().get(STRIDE).op('i32_mul').op('i32_add').set(p);
    // The int8 query's halves, sign-extended as the codes are.
    rowDot(c, { p, j, acc, codes }, () => c.get(STRIDE), (half) =>
      half === 0 ? c.get(Q).get(j).op('i32_add').vLoad().tee(q).v('i16x8_extend_low_i8x16_s') : c.get(q).v('i16x8_extend_high_i8x16_s'),
    );
    at(OUT).i32x4LaneSum(acc).i32Store();
  });
  return moduleBytes([c.fn()]);
}

export type GatherKernel = (q: number, codes: number, stride: number, idx: number, count: number, out: number) => void;

/** The gather kernel over `memory`, or undefined where WebAssembly SIMD is unavailable. */
export function gatherKernel(memory: WebAssembly.Memory): GatherKernel | undefined {
  return modules.instance<{ gather: GatherKernel }>('gather', memory)?.gather;
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
