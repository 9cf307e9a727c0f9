/**
 * A tiny WebAssembly binary writer: the engine's kernels (vector scan, encoder) are emitted byte by
 * byte from TypeScript, so no compiler, assembler or .wasm asset is needed at build or run time.
 * Covers what the kernels use: one imported memory, functions with i32/i64/f32/v128 locals, the MVP
 * control and memory instructions, fixed-width SIMD and relaxed SIMD (opcodes as in the
 * WebAssembly 2.0 / 3.0 binary format). Compiling and instantiating them: wasm-compile.ts.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const V128 = 0x7b;
export type ValType = typeof I32 | typeof I64 | typeof F32 | typeof V128;

/** Unsigned LEB128. */
export function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit integer. */
export function sleb(n: number): number[] {
  const out: number[] = [];
  n |= 0;
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const name = (s: string): number[] => [...leb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
export const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
export const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];

/** A function's signature, locals (beyond its parameters) and body (without the final `end`). */
export interface WasmFunction {
  name: string;
  params: ValType[];
  results: ValType[];
  locals: ValType[];
  body: number[];
}

/** A module importing its memory as ("e", "m") (`shared` for a SharedArrayBuffer memory) and exporting every function by name. */
export function moduleBytes(functions: readonly WasmFunction[], memory: { minPages: number; shared?: boolean; maxPages?: number } = { minPages: 0 }): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec(f.results.map((t) => [t]))]);
  const limits = memory.shared ? [0x03, ...leb(memory.minPages), ...leb(memory.maxPages ?? 65536)] : memory.maxPages !== undefined ? [0x01, ...leb(memory.minPages), ...leb(memory.maxPages)] : [0x00, ...leb(memory.minPages)];
  const code = functions.map((f) => {
    // Locals run-length encoded by type, in declaration order.
    const runs: number[][] = [];
    for (const t of f.locals) {
      const last = runs.at(-1);
      if (last && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    const body = [...vec(runs.map(([n, t]) => [...leb(n), t])), ...f.body, 0x0b];
    return [...leb(body.length), ...body];
  });
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec([[...name('e'), ...name('m'), 0x02, ...limits]])),
    ...section(3, vec(functions.map((_, i) => leb(i)))),
    ...section(7, vec(functions.map((f, i) => [...name(f.name), 0x00, ...leb(i)]))),
    ...section(10, vec(code)),
  ]);
}
