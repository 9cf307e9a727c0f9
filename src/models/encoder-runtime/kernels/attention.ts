/**
 * Fused self-attention of one sequence, all heads, float32 (as the int8 ONNX graph keeps it):
 * context = softmax(Q·Kᵀ)·V per head, Q already scaled by 1/√d (folded into the query weights at
 * load). The input is the fused QKV projection, one row of 3·H per token ([Q | K | V], head h at
 * columns h·d…); the sequence is unpadded, so no mask is needed (the padding mask of a batch is
 * the sequence's own length here).
 *
 * Per head: Kᵀ is copied into scratch ([d × n8], n8 = n rounded up to 8, pad keys 0) and V into
 * contiguous rows ([n × d]: read in place, a head's 128-byte slices lie 3·H·4 bytes apart, a stride
 * that maps them onto a few L1 sets and made P·V thrash), then 4 query rows at a time: scores
 * against 8 keys per step (8 accumulators: 4 rows × 2 vectors), pad scores set to −∞, softmax
 * (max, exp, sum), and P·V over the n real keys, 8 channels at a time. Query rows
 * are taken in blocks of 4 past the sequence's end: the extra rows' results land in rows that the
 * next sequence rewrites (or in the padding rows after the batch), never read as this sequence's.
 */
import { Code } from '../../../util/wasm-code.ts';
import { I32, type WasmFunction } from '../../../util/wasm-module.ts';
import { exp, madd } from './simd-math.ts';

export const attentionName = (H: number, heads: number) => `attention_h${H}_n${heads}`;

/**
 * attention_h<H>_n<heads>(qkv, n, out, kt, p, vh): qkv [n × 3H] float32, out [n × H]; scratch:
 * kt d·(n+8), p 4·(n+8), vh n·d float32.
 */
export function attentionFunction(H: number, heads: number, relaxed: boolean): WasmFunction {
  const d = H / heads;
  if (d % 8) throw new Error(`attention: head size ${d} is not a multiple of 8`);
  const ROW = 3 * H * 4; // bytes per qkv row
  const c = new Code(attentionName(H, heads), [I32, I32, I32, I32, I32, I32]);
  const [QKV, N, OUT, KT, P, VH] = [0, 1, 2, 3, 4, 5];
  const [h, i, j, ch, n8, stride, qp, kp, pp, vp, r4] = c.locals('i32', 11);
  const acc = Array.from({ length: 4 }, () => c.locals('v128', 2));
  const [k0, k1, x, sum, t0, t1, vmax] = c.locals('v128', 7);
  const inv = c.locals('f32', 4);
  const fmax = c.local('f32');
  const zeroAcc = () => acc.flat().forEach((a) => c.i32x4Const(0).set(a));
  const prow = c.locals('i32', 4);
  /** acc[r][0..1] += splat(f32 at address(r) + offset(r)) · (k0, k1), for r = 0..3 */
  const step = (address: (r: number) => void, offset: (r: number) => number) => {
    for (let r = 0; r < 4; r++) {
      address(r);
      c.vLoad32Splat(offset(r)).set(x);
      for (let b = 0; b < 2; b++) madd(c, relaxed, () => c.get(x), () => c.get(b ? k1 : k0), () => c.get(acc[r][b])), c.set(acc[r][b]);
    }
  };

  c.get(N).i32(7).op('i32_add').i32(-8).op('i32_and').set(n8);
  c.get(n8).i32(2).op('i32_shl').set(stride); // bytes per kt row and per p row
  c.forRange(h, () => c.i32(0), () => c.i32(heads), 1, () => {
    // kt[c][j] = K[j][h·d + c], pad keys (n ≤ j < n8) 0.
    c.forRange(j, () => c.i32(0), () => c.get(n8), 1, () => {
      c.get(KT).get(j).i32(2).op('i32_shl').op('i32_add').set(pp);
      c.get(QKV).get(j).i32(ROW).op('i32_mul').op('i32_add').get(h).i32(d * 4).op('i32_mul').op('i32_add').set(kp);
      const real = c.local('i32');
      c.get(j).get(N).op('i32_lt_s').set(real);
      for (let cc = 0; cc < d; cc++) {
        c.get(pp).get(kp).f32Load(H * 4 + cc * 4).f32(0).get(real).op('select').f32Store();
        c.get(pp).get(stride).op('i32_add').set(pp);
      }
      // vh[j] = V[j][h·d …] (rows past n are copied too and never read)
      c.get(VH).get(j).i32(d * 4).op('i32_mul').op('i32_add').set(vp);
      for (let v = 0; v < d / 4; v++) c.get(vp).get(kp).vLoad(2 * H * 4 + v * 16).vStore(v * 16);
    });
    c.forRange(i, () => c.i32(0), () => c.get(N), 4, () => {
      c.get(QKV).get(i).i32(ROW).op('i32_mul').op('i32_add').get(h).i32(d * 4).op('i32_mul').op('i32_add').set(qp);
      // Scores, 4 rows × 8 keys per step.
      c.forRange(j, () => c.i32(0), () => c.get(n8), 8, () => {
        zeroAcc();
        c.get(KT).get(j).i32(2).op('i32_shl').op('i32_add').set(kp);
        for (let cc = 0; cc < d; cc++) {
          c.get(kp).vLoad().set(k0);
          c.get(kp).vLoad(16).set(k1);
          step(() => c.get(qp), (r) => r * ROW + cc * 4);
          c.get(kp).get(stride).op('i32_add').set(kp);
        }
        for (let r = 0; r < 4; r++) {
          for (let b = 0; b < 2; b++) {
            c.get(P).get(stride).i32(r).op('i32_mul').op('i32_add').get(j).i32(2).op('i32_shl').op('i32_add').get(acc[r][b]).vStore(b * 16);
          }
        }
      });
      // Softmax of each row over the n real keys (pad scores −∞ → exp ≈ 0, never read by P·V).
      for (let r = 0; r < 4; r++) {
        c.get(P).get(stride).i32(r).op('i32_mul').op('i32_add').set(pp);
        c.forRange(j, () => c.get(N), () => c.get(n8), 1, () => c.get(pp).get(j).i32(2).op('i32_shl').op('i32_add').f32(-Infinity).f32Store());
        c.f32x4Const(-Infinity).set(vmax);
        c.forRange(j, () => c.i32(0), () => c.get(stride), 16, () => c.get(pp).get(j).op('i32_add').vLoad().get(vmax).v('f32x4_max').set(vmax));
        c.get(vmax).f32x4Extract(0).get(vmax).f32x4Extract(1).op('f32_max').get(vmax).f32x4Extract(2).op('f32_max').get(vmax).f32x4Extract(3).op('f32_max').set(fmax);
        c.get(fmax).v('f32x4_splat').set(vmax);
        c.f32x4Const(0).set(sum);
        c.forRange(j, () => c.i32(0), () => c.get(stride), 16, () => {
          c.get(pp).get(j).op('i32_add').vLoad().get(vmax).v('f32x4_sub').set(x);
          c.get(pp).get(j).op('i32_add');
          exp(c, x, t0, t1, relaxed);
          c.tee(x).vStore();
          c.get(sum).get(x).v('f32x4_add').set(sum);
        });
        // Only the n real entries count (pad entries are ≈ 1e-38 each).
        c.f32(1).get(sum).f32x4Extract(0).get(sum).f32x4Extract(1).op('f32_add').get(sum).f32x4Extract(2).op('f32_add').get(sum).f32x4Extract(3).op('f32_add').op('f32_div').set(inv[r]);
      }
      // P·V, 8 channels at a time.
      c.forRange(ch, () => c.i32(0), () => c.i32(d * 4), 32, () => {
        zeroAcc();
        c.get(VH).get(ch).op('i32_add').set(vp);
        for (let r = 0; r < 4; r++) c.get(P).get(stride).i32(r).op('i32_mul').op('i32_add').set(prow[r]);
        c.forRange(j, () => c.i32(0), () => c.get(N), 1, () => {
          c.get(vp).vLoad().set(k0);
          c.get(vp).vLoad(16).set(k1);
          step((r) => c.get(prow[r]), () => 0);
          c.get(vp).i32(d * 4).op('i32_add').set(vp);
          for (const q of prow) c.addTo(q, 4);
        });
        for (let r = 0; r < 4; r++) {
          c.get(OUT).get(i).i32(r).op('i32_add').i32(H * 4).op('i32_mul').op('i32_add').get(h).i32(d * 4).op('i32_mul').op('i32_add').get(ch).op('i32_add').set(r4);
          for (let b = 0; b < 2; b++) c.get(r4).get(acc[r][b]).get(inv[r]).v('f32x4_splat').v('f32x4_mul').vStore(b * 16);
        }
      });
    });
  });
  return c.fn();
}
