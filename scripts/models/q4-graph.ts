/**
 * ONNX subgraphs that ship a matrix as its Q4_0 blocks (scripts/models/q4.ts) and rebuild values
 * from them with standard operators only (Gather, Cast, Floor, Reshape, Concat, Mul), so any
 * ONNX runtime runs them and the file stays 4.5 bits per value:
 *
 *   - `q4Rows`: the rows of a table picked by an index tensor (the word embeddings: only the rows a
 *     batch looks up are unpacked, at run time);
 *   - `q4Matrix`: a whole weight matrix, every input a constant, so onnxruntime folds it into a
 *     float32 initializer once, when the session is created (the download is 4-bit, the compute is
 *     whatever the graph does with the matrix next).
 *
 * Unpacking: a byte b holds the low nibble b − 16·⌊b/16⌋ (value j of its block) and the high one
 * ⌊b/16⌋ (value j + 16); value = d·(nibble − 8), with d the block's fp16 scale.
 */
import { GraphBuilder, T } from './onnx-builder.ts';
import type { Q4Blocks } from './safetensors.ts';

/** The codes as uint8 [...outer, blocks·16] and the scales as fp16 [...outer, blocks, 1]. */
function constants(g: GraphBuilder, name: string, blocks: Q4Blocks, rows: number, cols: number): { codes: string; scales: string; perRow: number } {
  const perRow = cols / 32;
  if (!Number.isInteger(perRow) || blocks.scales.length !== rows * perRow) throw new Error(`${name}: ${blocks.scales.length} Q4_0 blocks do not make [${rows}, ${cols}]`);
  return {
    codes: g.constant(`${name}.q4_codes`, T.UINT8, [rows, perRow * 16], blocks.codes),
    scales: g.constant(`${name}.q4_scales`, T.FLOAT16, [rows, perRow, 1], blocks.scales),
    perRow,
  };
}

/** Packed bytes (float, [..., n·16]) → values before scaling ([..., n, 32], nibble − 8). */
function unpack(g: GraphBuilder, bytes: string, shape: string): string {
  const sixteen = g.shared('const.q4_sixteen', () => g.scalar('const.q4_sixteen', 16));
  const high = g.op('Floor', [g.op('Div', [bytes, sixteen])]);
  const low = g.op('Sub', [bytes, g.op('Mul', [high, sixteen])]);
  const nibbles = g.op('Concat', [g.op('Reshape', [low, shape]), g.op('Reshape', [high, shape])], { axis: -1 });
  return g.op('Sub', [nibbles, g.shared('const.q4_eight', () => g.scalar('const.q4_eight', 8))]);
}

/** float32 [...ids.shape, cols]: the rows `ids` of the Q4_0 table [rows, cols]. */
export function q4Rows(g: GraphBuilder, name: string, blocks: Q4Blocks, rows: number, cols: number, ids: string): string {
  const { codes, scales, perRow } = constants(g, name, blocks, rows, cols);
  const bytes = g.op('Cast', [g.op('Gather', [codes, ids], { axis: 0 })], { to: T.FLOAT });
  const values = unpack(g, bytes, g.int64(`${name}.q4_block_shape`, [0, 0, perRow, 16]));
  const scaled = g.op('Mul', [values, g.op('Cast', [g.op('Gather', [scales, ids], { axis: 0 })], { to: T.FLOAT })]);
  return g.op('Reshape', [scaled, g.int64(`${name}.q4_row_shape`, [0, 0, cols])]);
}

/** float32 [rows, cols] rebuilt from its Q4_0 blocks (a constant subgraph: folded at session creation). */
export function q4Matrix(g: GraphBuilder, name: string, blocks: Q4Blocks, rows: number, cols: number): string {
  const { codes, scales, perRow } = constants(g, name, blocks, rows, cols);
  const values = unpack(g, g.op('Cast', [codes], { to: T.FLOAT }), g.int64(`${name}.q4_block_shape`, [0, perRow, 16]));
  return g.op('Reshape', [g.op('Mul', [values, g.op('Cast', [scales], { to: T.FLOAT })]), g.int64(`${name}.q4_matrix_shape`, [rows, cols])]);
}

/**
 * Symmetric int8 per column of a float [rows, cols] graph value (a constant subgraph when `w` is):
 * scale_c = max|w[:, c]|/127, q = round(w/scale) — `quantizeColumns` of bert-onnx.ts, in-graph —
 * returned as uint8 q + 128 (zero point 128), as bert-onnx.ts `offsetBinary` ships int8 weights:
 * onnxruntime's uint8 × int8 kernel on x86 without VNNI saturates pair sums in int16.
 */
export function int8Columns(g: GraphBuilder, w: string): { q: string; scale: string } {
  const max = g.shared('const.q_127', () => g.scalar('const.q_127', 127));
  const min = g.shared('const.q_minus_127', () => g.scalar('const.q_minus_127', -127));
  const absMax = g.op('ReduceMax', [g.op('Abs', [w])], { axes: [0], keepdims: 1 });
  // An all-zero column keeps a positive scale (its codes are 0 whatever it is), as quantizeColumns does.
  const scale = g.op('Max', [g.op('Div', [absMax, max]), g.shared('const.q_tiny', () => g.scalar('const.q_tiny', 1e-30))]);
  const rounded = g.op('Clip', [g.op('Round', [g.op('Div', [w, scale])]), min, max]);
  const offset = g.op('Add', [rounded, g.shared('const.q_offset', () => g.scalar('const.q_offset', 128))]);
  return { q: g.op('Cast', [offset], { to: T.UINT8 }), scale: g.op('Reshape', [scale, g.shared('const.q_flat', () => g.int64('const.q_flat', [-1]))]) };
}
