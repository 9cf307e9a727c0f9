/**
 * The 4-bit storage of the graph writer (scripts/models/q4.ts, q4-graph.ts), run on onnxruntime-node:
 * rows gathered from Q4_0 blocks and matrices rebuilt from them equal the blocks' exact
 * dequantisation, the in-graph int8 column quantisation equals bert-onnx.ts's, and ggml's rule
 * quantises dequantised blocks back to the same bytes.
 */
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { quantizeColumns } from '../../scripts/models/bert-onnx.ts';
import { GraphBuilder, T } from '../../scripts/models/onnx-builder.ts';
import { valueInfo } from '../../scripts/models/onnx-graph.ts';
import { dequantizeQ4, quantizeQ4, toF16 } from '../../scripts/models/q4.ts';
import { int8Columns, q4Matrix, q4Rows } from '../../scripts/models/q4-graph.ts';
import { f16 } from '../../scripts/models/safetensors.ts';
import { rng } from '../../src/util/prng.ts';

const ROWS = 7;
const COLS = 64;

function randomValues(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * (r() < 0.05 ? 40 : 2));
}

async function run(g: GraphBuilder, output: string, rank: number, feeds: Record<string, ort.Tensor>, inputs: ReturnType<typeof valueInfo>[]): Promise<ort.Tensor> {
  g.op('Identity', [output], {}, ['out']);
  const bytes = g.encode({ name: 't', doc: '', inputs, outputs: [valueInfo('out', T.FLOAT, ['d0', 'd1', 'd2'].slice(0, rank))], opset: 17, producer: 'test' });
  const session = await ort.InferenceSession.create(bytes);
  try {
    return (await session.run(feeds)).out;
  } finally {
    await session.release();
  }
}

describe('Q4_0 (scripts/models/q4.ts)', () => {
  it('fp16 conversion round-trips every half-precision value', () => {
    const wrong: string[] = [];
    for (let h = 0; h < 0x10000; h++) if ((h & 0x7c00) !== 0x7c00 && toF16(f16(h)) !== h) wrong.push(h.toString(16)); // inf / NaN skipped
    expect(wrong).toEqual([]);
    expect([toF16(1 / 3), toF16(65504), toF16(1e6), toF16(2 ** -25)]).toEqual([0x3555, 0x7bff, 0x7c00, 0]);
  });

  it("ggml's rule quantises dequantised blocks back to the same bytes", () => {
    const blocks = quantizeQ4(randomValues(ROWS * COLS, 1));
    const again = quantizeQ4(dequantizeQ4(blocks));
    expect(again.scales).toEqual(blocks.scales);
    expect(again.codes).toEqual(blocks.codes);
  });

  it('the dequantised values are within half a step of the originals', () => {
    const values = randomValues(ROWS * COLS, 2);
    const blocks = quantizeQ4(values);
    const back = dequantizeQ4(blocks);
    for (let i = 0; i < values.length; i++) expect(Math.abs(back[i] - values[i])).toBeLessThanOrEqual(Math.abs(f16(blocks.scales[Math.floor(i / 32)])) * 0.5001 + 1e-7);
  });
});

describe('4-bit subgraphs (scripts/models/q4-graph.ts) on onnxruntime-node', () => {
  const blocks = quantizeQ4(randomValues(ROWS * COLS, 3));
  const exact = dequantizeQ4(blocks);

  it('q4Rows gathers exactly the dequantised rows, for any index tensor', async () => {
    const g = new GraphBuilder();
    const ids = [[6, 0, 3], [3, 3, 1]];
    const out = await run(g, q4Rows(g, 'table', blocks, ROWS, COLS, 'ids'), 3, { ids: new ort.Tensor('int64', BigInt64Array.from(ids.flat().map(BigInt)), [2, 3]) }, [valueInfo('ids', T.INT64, ['b', 's'])]);
    expect(out.dims).toEqual([2, 3, COLS]);
    const data = out.data as Float32Array;
    ids.flat().forEach((row, k) => expect(Array.from(data.subarray(k * COLS, (k + 1) * COLS))).toEqual(Array.from(exact.subarray(row * COLS, (row + 1) * COLS))));
  });

  it('q4Matrix rebuilds the whole matrix, and int8Columns quantises it as quantizeColumns does (as uint8, zero point 128)', async () => {
    const g = new GraphBuilder();
    const matrix = q4Matrix(g, 'w', blocks, ROWS, COLS);
    const { q, scale } = int8Columns(g, matrix);
    // Dequantise the in-graph int8 codes to compare them with the TypeScript quantiser's.
    const rebuilt = g.op('Mul', [g.op('Sub', [g.op('Cast', [q], { to: T.FLOAT }), g.scalar('offset', 128)]), scale]);
    const x = g.op('Add', [rebuilt, g.op('Mul', ['zero', g.op('Cast', [matrix], { to: T.FLOAT })])]);
    const out = await run(g, x, 2, { zero: new ort.Tensor('float32', Float32Array.of(0), []) }, [valueInfo('zero', T.FLOAT, [])]);
    const { q: tq, scales } = quantizeColumns(exact, ROWS, COLS);
    const want = Float32Array.from(tq, (v, i) => v * scales[i % COLS]);
    const got = out.data as Float32Array;
    for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i], 6);
  });
});
