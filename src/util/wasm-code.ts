/**
 * Writes one WebAssembly function's body: named locals, structured loops, and the instructions the
 * kernels use (scalar i32/i64/f32, SIMD and relaxed SIMD). Each method appends bytes and returns `this`,
 * so a kernel reads as its instruction sequence; `fn()` hands the result to `moduleBytes`.
 */
import { F32, I32, I64, leb, sleb, V128, type ValType, type WasmFunction } from './wasm-module.ts';

const simd = (op: number) => [0xfd, ...leb(op)];
/** memarg: alignment exponent, offset. */
const mem = (align: number, offset: number) => [align, ...leb(offset)];

/** Byte lanes of an i8x16.shuffle that pick 32-bit lanes `l` of (a ‖ b). */
export const lanes32 = (l: readonly number[]): number[] => l.flatMap((x) => [x * 4, x * 4 + 1, x * 4 + 2, x * 4 + 3]);
const LANES_EVEN = lanes32([0, 2, 4, 6]);
const LANES_ODD = lanes32([1, 3, 5, 7]);

/** SIMD instructions without immediates, by name. */
const V = {
  i8x16_swizzle: 0x0e,
  i16x8_splat: 0x10,
  i32x4_splat: 0x11,
  f32x4_splat: 0x13,
  f32x4_eq: 0x41,
  f32x4_lt: 0x43,
  f32x4_gt: 0x44,
  v128_not: 0x4d,
  v128_and: 0x4e,
  v128_andnot: 0x4f,
  v128_or: 0x50,
  v128_xor: 0x51,
  v128_bitselect: 0x52,
  i16x8_le_s: 0x33,
  i8x16_popcnt: 0x62,
  i8x16_add: 0x6e,
  i16x8_extadd_pairwise_i8x16_u: 0x7d,
  i32x4_extadd_pairwise_i16x8_u: 0x7f,
  i16x8_bitmask: 0x84,
  i8x16_narrow_i16x8_s: 0x65,
  i8x16_narrow_i16x8_u: 0x66,
  i16x8_narrow_i32x4_s: 0x85,
  i16x8_narrow_i32x4_u: 0x86,
  i16x8_extend_low_i8x16_s: 0x87,
  i16x8_extend_high_i8x16_s: 0x88,
  i16x8_extend_low_i8x16_u: 0x89,
  i16x8_extend_high_i8x16_u: 0x8a,
  i32x4_shl: 0xab,
  i32x4_shr_s: 0xac,
  i32x4_add: 0xae,
  i32x4_sub: 0xb1,
  i32x4_mul: 0xb5,
  i32x4_min_s: 0xb6,
  i32x4_max_s: 0xb8,
  i32x4_dot_i16x8_s: 0xba,
  f32x4_nearest: 0x6a,
  f32x4_abs: 0xe0,
  f32x4_neg: 0xe1,
  f32x4_sqrt: 0xe3,
  f32x4_add: 0xe4,
  f32x4_sub: 0xe5,
  f32x4_mul: 0xe6,
  f32x4_div: 0xe7,
  f32x4_min: 0xe8,
  f32x4_max: 0xe9,
  f32x4_pmin: 0xea,
  f32x4_pmax: 0xeb,
  i32x4_trunc_sat_f32x4_s: 0xf8,
  f32x4_convert_i32x4_s: 0xfa,
  // Relaxed SIMD (WebAssembly 3.0).
  f32x4_relaxed_madd: 0x105,
  i16x8_relaxed_dot_i8x16_i7x16_s: 0x112,
  i32x4_relaxed_dot_i8x16_i7x16_add_s: 0x113,
} as const;
export type SimdOp = keyof typeof V;

/** Scalar instructions without immediates, by name. */
const S = {
  drop: 0x1a,
  select: 0x1b,
  i32_eqz: 0x45,
  i32_eq: 0x46,
  i32_ne: 0x47,
  i32_lt_s: 0x48,
  i32_lt_u: 0x49,
  i32_gt_s: 0x4a,
  i32_gt_u: 0x4b,
  i32_le_s: 0x4c,
  i32_le_u: 0x4d,
  i32_ge_s: 0x4e,
  i32_ge_u: 0x4f,
  f32_lt: 0x5d,
  i64_popcnt: 0x7b,
  i64_add: 0x7c,
  i64_xor: 0x85,
  f32_gt: 0x5e,
  i32_add: 0x6a,
  i32_sub: 0x6b,
  i32_mul: 0x6c,
  i32_div_s: 0x6d,
  i32_and: 0x71,
  i32_or: 0x72,
  i32_shl: 0x74,
  i32_shr_s: 0x75,
  i32_shr_u: 0x76,
  f32_abs: 0x8b,
  f32_neg: 0x8c,
  f32_nearest: 0x90,
  f32_sqrt: 0x91,
  f32_add: 0x92,
  f32_sub: 0x93,
  f32_mul: 0x94,
  f32_div: 0x95,
  f32_min: 0x96,
  f32_max: 0x97,
  i32_wrap_i64: 0xa7,
  f32_convert_i32_s: 0xb2,
  i32_reinterpret_f32: 0xbc,
  f32_reinterpret_i32: 0xbe,
} as const;
export type ScalarOp = keyof typeof S;

const VALTYPE = { i32: I32, i64: I64, f32: F32, v128: V128 } as const;
type TypeName = keyof typeof VALTYPE;

export class Code {
  readonly bytes: number[] = [];
  private readonly localTypes: ValType[] = [];
  private readonly paramCount: number;

  constructor(
    readonly name: string,
    readonly params: ValType[],
    readonly results: ValType[] = [],
  ) {
    this.paramCount = params.length;
  }

  /** A new local of `type`; returns its index. */
  local(type: TypeName): number {
    this.localTypes.push(VALTYPE[type]);
    return this.paramCount + this.localTypes.length - 1;
  }

  /** Several new locals of one type. */
  locals(type: TypeName, n: number): number[] {
    return Array.from({ length: n }, () => this.local(type));
  }

  fn(): WasmFunction {
    return { name: this.name, params: this.params, results: this.results, locals: this.localTypes, body: this.bytes };
  }

  raw(...b: number[]): this {
    this.bytes.push(...b);
    return this;
  }

  get(i: number): this {
    return this.raw(0x20, ...leb(i));
  }
  set(i: number): this {
    return this.raw(0x21, ...leb(i));
  }
  tee(i: number): this {
    return this.raw(0x22, ...leb(i));
  }
  i32(v: number): this {
    return this.raw(0x41, ...sleb(v));
  }
  f32(v: number): this {
    const b = new Uint8Array(new Float32Array([v]).buffer);
    return this.raw(0x43, ...b);
  }
  op(name: ScalarOp): this {
    return this.raw(S[name]);
  }
  /** i32.trunc_sat_f32_s (saturating, never traps). */
  i32TruncSat(): this {
    return this.raw(0xfc, 0x00);
  }
  v(name: SimdOp): this {
    return this.raw(...simd(V[name]));
  }

  // Memory: `offset` is a constant byte offset added to the address on the stack.
  i32Load(offset = 0): this {
    return this.raw(0x28, ...mem(2, offset));
  }
  i64Load(offset = 0): this {
    return this.raw(0x29, ...mem(3, offset));
  }
  f32Load(offset = 0): this {
    return this.raw(0x2a, ...mem(2, offset));
  }
  i32Load8u(offset = 0): this {
    return this.raw(0x2d, ...mem(0, offset));
  }
  i32Load16u(offset = 0): this {
    return this.raw(0x2f, ...mem(1, offset));
  }
  i32Store(offset = 0): this {
    return this.raw(0x36, ...mem(2, offset));
  }
  f32Store(offset = 0): this {
    return this.raw(0x38, ...mem(2, offset));
  }
  i32Store16(offset = 0): this {
    return this.raw(0x3b, ...mem(1, offset));
  }
  i32Store8(offset = 0): this {
    return this.raw(0x3a, ...mem(0, offset));
  }
  vLoad(offset = 0): this {
    return this.raw(...simd(0x00), ...mem(4, offset));
  }
  vLoad32Splat(offset = 0): this {
    return this.raw(...simd(0x09), ...mem(2, offset));
  }
  vLoad64Splat(offset = 0): this {
    return this.raw(...simd(0x0a), ...mem(3, offset));
  }
  vStore(offset = 0): this {
    return this.raw(...simd(0x0b), ...mem(4, offset));
  }
  /** v128.store32_lane: stores lane `lane` of an i32x4 (address, vector on the stack). */
  vStore32Lane(lane: number, offset = 0): this {
    return this.raw(...simd(0x5a), ...mem(2, offset), lane);
  }
  /** v128.store64_lane: stores lane `lane` of an i64x2 (address, vector on the stack). */
  vStore64Lane(lane: number, offset = 0): this {
    return this.raw(...simd(0x5b), ...mem(3, offset), lane);
  }
  vConst(bytes: ArrayLike<number>): this {
    if (bytes.length !== 16) throw new Error('v128.const takes 16 bytes');
    return this.raw(...simd(0x0c), ...Array.from(bytes));
  }
  f32x4Const(v: number): this {
    return this.vConst(new Uint8Array(new Float32Array([v, v, v, v]).buffer));
  }
  i32x4Const(v: number): this {
    return this.vConst(new Uint8Array(new Int32Array([v, v, v, v]).buffer));
  }
  shuffle(lanes: readonly number[]): this {
    if (lanes.length !== 16) throw new Error('i8x16.shuffle takes 16 lanes');
    return this.raw(...simd(0x0d), ...lanes);
  }
  i32x4Extract(lane: number): this {
    return this.raw(...simd(0x1b), lane);
  }
  /** Pushes the sum of the four i32 lanes of local `v`. */
  i32x4LaneSum(v: number): this {
    return this.get(v).i32x4Extract(0).get(v).i32x4Extract(1).op('i32_add').get(v).i32x4Extract(2).op('i32_add').get(v).i32x4Extract(3).op('i32_add');
  }
  /** Pushes the sums of neighbouring i32 lanes of locals a and b: [a0+a1, a2+a3, b0+b1, b2+b3]. */
  i32x4PairSums(a: number, b: number): this {
    return this.get(a).get(b).shuffle(LANES_EVEN).get(a).get(b).shuffle(LANES_ODD).v('i32x4_add');
  }
  f32x4Extract(lane: number): this {
    return this.raw(...simd(0x1f), lane);
  }

  // Control. Labels count outwards from the innermost construct, as in the binary format.
  block(body: () => void): this {
    this.raw(0x02, 0x40);
    body();
    return this.raw(0x0b);
  }
  loop(body: () => void): this {
    this.raw(0x03, 0x40);
    body();
    return this.raw(0x0b);
  }
  if(then: () => void, otherwise?: () => void): this {
    this.raw(0x04, 0x40);
    then();
    if (otherwise) {
      this.raw(0x05);
      otherwise();
    }
    return this.raw(0x0b);
  }
  br(depth: number): this {
    return this.raw(0x0c, ...leb(depth));
  }
  brIf(depth: number): this {
    return this.raw(0x0d, ...leb(depth));
  }

  /** while (!exit) body — `exit` pushes the condition, tested before each pass. */
  until(exit: () => void, body: () => void): this {
    return this.block(() => {
      this.loop(() => {
        exit();
        this.brIf(1);
        body();
        this.br(0);
      });
    });
  }

  /**
   * for (i = from; i < to; i += step) body — `from` and `to` push their values (evaluated once:
   * `to` into a local). The loop runs zero times when from ≥ to.
   */
  forRange(i: number, from: () => void, to: () => void, step: number, body: () => void): this {
    const end = this.local('i32');
    from();
    this.set(i);
    to();
    this.set(end);
    return this.block(() => {
      this.get(i).get(end).op('i32_ge_s').brIf(0);
      this.loop(() => {
        body();
        this.get(i).i32(step).op('i32_add').tee(i).get(end).op('i32_lt_s').brIf(0);
      });
    });
  }

  /** local[i] += v (i32). */
  addTo(i: number, v: number): this {
    return this.get(i).i32(v).op('i32_add').set(i);
  }
}
