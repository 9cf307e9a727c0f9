/**
 * Our encoder runtime on the built MiniLM (`npm run models` writes encoder/model.bin and
 * encoder/model_quantized.bin beside the ONNX files):
 *   - the weight files hold exactly the ONNX graphs' weights (same int8 values, scales, smoothing);
 *   - the plain-JS reference forward pass matches sentence-transformers (fp32 ≥ 0.9999, q8 ≥ 0.99)
 *     on the reference texts (a few by default; all 20 with RCP_SLOW_TESTS=1: plain JS runs at
 *     ≈ 0.2 GMAC/s here, so the long text alone takes ~10 s);
 *   - the WASM kernels match the reference and, on all 20 texts, sentence-transformers (≥ 0.99)
 *     and the int8 ONNX graph (≥ 0.99) on onnxruntime-web, the runtime transformers.js uses in the
 *     browser. Not onnxruntime-node: on an x86 CPU with AVX2 but no VNNI (this machine's AMD EPYC)
 *     its u8×s8 MatMulInteger sums pairs in saturating int16 (vpmaddubsw), and the int8 graph's
 *     vectors there reach only ≈ 0.62 cosine to sentence-transformers (test/models/encoder-parity).
 * Skips (loudly) only when the model has not been built; `prepare` builds it, so CI runs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { MINILM } from '../../scripts/models/encoders.ts';
import { bertWeights, type BertWeights } from '../../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights, WEIGHTS_FILE, type EncoderWeights } from '../../src/models/encoder-runtime/weights-file.ts';
import { poolHidden, referenceEmbed, referenceHidden } from '../../src/models/encoder-runtime/reference.ts';
import { encoderKernels } from '../../src/models/encoder-runtime/kernel-module.ts';
import { WasmBertEncoder } from '../../src/models/encoder-runtime/wasm-encoder.ts';
import { ORT_WASM_FILES } from '../../src/models/settings.ts';

interface Reference {
  texts: { text: string; input_ids: number[]; embedding: number[] }[];
}
const REFERENCE = JSON.parse(readFileSync(new URL('./fixtures/reference-embeddings.json', import.meta.url), 'utf8')) as Reference;
const FOLDER = `${MODELS_DIR}/${MINILM.name}`;
const BUILT = existsSync(`${FOLDER}/${WEIGHTS_FILE.q8}`) && existsSync(`${FOLDER}/${WEIGHTS_FILE.fp32}`) && existsSync(`${FOLDER}/onnx/model_quantized.onnx`);
if (!BUILT) console.warn(`[encoder-runtime-parity] SKIPPED: ${FOLDER} has no encoder weight files — run \`npm run models\``);
const SLOW = process.env.RCP_SLOW_TESTS === '1';

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};
const read = (file: string): EncoderWeights => {
  const b = readFileSync(`${FOLDER}/${file}`);
  return decodeWeights(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
};
/** The reference texts the plain-JS checks use by default: the shortest (the JS forward pass is slow). */
const QUICK = REFERENCE.texts.map((t, i) => [t.input_ids.length, i]).sort((a, b) => a[0] - b[0]).slice(0, 6).map(([, i]) => i);
const SUBSET = SLOW ? REFERENCE.texts.map((_, i) => i) : QUICK;

/** Bytes of a typed array, for fast equality. */
const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The ONNX file's initializers by name. */
function initializers(path: string): Map<string, { dims: number[]; data: Float32Array | Int8Array }> {
  const model = onnxProto.onnx.ModelProto.decode(readFileSync(path));
  const out = new Map<string, { dims: number[]; data: Float32Array | Int8Array }>();
  const T = onnxProto.onnx.TensorProto.DataType;
  for (const t of model.graph!.initializer!) {
    const raw = t.rawData!;
    const bytes = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    if (t.dataType === T.FLOAT) out.set(t.name!, { dims: t.dims!.map(Number), data: new Float32Array(bytes) });
    else if (t.dataType === T.INT8) out.set(t.name!, { dims: t.dims!.map(Number), data: new Int8Array(bytes) });
    // The q8 graph stores weights as uint8 around zero point 128 (scripts/models/bert-onnx.ts): back to int8.
    else if (t.dataType === T.UINT8 && t.name!.endsWith('.weight_quantized')) out.set(t.name!, { dims: t.dims!.map(Number), data: Int8Array.from(new Uint8Array(bytes), (b) => b - 128) });
  }
  return out;
}

describe.skipIf(!BUILT)(`${MINILM.name}: our encoder runtime`, () => {
  let q8: BertWeights;
  let fp32: BertWeights;
  beforeAll(() => {
    q8 = bertWeights(read(WEIGHTS_FILE.q8));
    fp32 = bertWeights(read(WEIGHTS_FILE.fp32));
  });

  it('the int8 weight file holds the int8 ONNX graph\'s weights, scales and smoothing, the fp32 file the fp32 graph\'s', () => {
    const onnx = initializers(`${FOLDER}/onnx/model_quantized.onnx`);
    const file = read(WEIGHTS_FILE.q8);
    let compared = 0;
    for (const [name, t] of onnx) {
      const ours = name.endsWith('.weight_quantized') ? name.replace(/_quantized$/, '') : name.startsWith('encoder.') || name.startsWith('embeddings.') ? name : undefined;
      if (!ours) continue;
      const mine = file.find(ours);
      expect(mine, name).toBeDefined();
      expect(bytesOf(mine!).equals(bytesOf(t.data)), name).toBe(true);
      compared++;
    }
    // Every linear's weight + scale + bias, the smoothing of each smoothed input, the tables and norms.
    expect(compared).toBeGreaterThanOrEqual(6 * 6 * 3 + 6 * 4 + 6);
    expect(file.find('encoder.layer.1.attention.self.query.input_smoothing')).toBeDefined();
    const onnx32 = initializers(`${FOLDER}/onnx/model.onnx`);
    const w = onnx32.get('encoder.layer.3.intermediate.dense.weight')!;
    expect(bytesOf(read(WEIGHTS_FILE.fp32).float('encoder.layer.3.intermediate.dense.weight', w.dims)).equals(bytesOf(w.data))).toBe(true);
  }, 60_000);

  for (const [dtype, threshold] of [['fp32', 0.9999], ['q8', 0.99]] as const) {
    it(`the plain-JS reference (${dtype}) matches sentence-transformers: cosine ≥ ${threshold} on ${SUBSET.length} texts`, () => {
      const vectors = referenceEmbed(dtype === 'q8' ? q8 : fp32, SUBSET.map((i) => ({ ids: REFERENCE.texts[i].input_ids })), 'mean');
      const cosines = vectors.map((v, j) => cosine(v, REFERENCE.texts[SUBSET[j]].embedding));
      console.log(`[encoder-runtime-parity] JS reference ${dtype}: min cosine ${Math.min(...cosines).toFixed(6)} over ${SUBSET.length} texts`);
      cosines.forEach((c, j) => expect(c, REFERENCE.texts[SUBSET[j]].text.slice(0, 60)).toBeGreaterThanOrEqual(threshold));
    }, SLOW ? 900_000 : 120_000);
  }

  describe('WASM kernels', () => {
    let wasm: WasmBertEncoder;
    let onnxQ8: ort.InferenceSession;
    beforeAll(async () => {
      wasm = new WasmBertEncoder(q8, (await encoderKernels(q8.shape))!);
      const dist = join(import.meta.dirname, '..', '..', 'node_modules', 'onnxruntime-web', 'dist');
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.wasmPaths = { mjs: join(dist, ORT_WASM_FILES[0]), wasm: join(dist, ORT_WASM_FILES[1]) };
      onnxQ8 = await ort.InferenceSession.create(`${FOLDER}/onnx/model_quantized.onnx`);
    }, 60_000);
    afterAll(() => onnxQ8?.release());

    it('give the reference\'s sentence vectors (float rounding may flip an activation code: cosine ≥ 0.9999)', () => {
      const inputs = QUICK.slice(0, 4).map((i) => ({ ids: REFERENCE.texts[i].input_ids }));
      const got = wasm.hidden(inputs);
      inputs.forEach((input, j) => {
        const want = referenceHidden(q8, input);
        let worst = 0;
        for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(want[i] - got[j][i]));
        expect(worst).toBeLessThan(0.05);
        expect(cosine(poolHidden(got[j], input.ids.length, q8.shape.hidden, 'mean'), poolHidden(want, input.ids.length, q8.shape.hidden, 'mean'))).toBeGreaterThan(0.9999);
      });
    }, 120_000);

    it('match sentence-transformers (≥ 0.99) and the int8 ONNX graph (≥ 0.99) on all 20 texts, the truncated one included', async () => {
      const inputs = REFERENCE.texts.map((t) => ({ ids: t.input_ids }));
      const ours = wasm.hidden(inputs).map((h, i) => poolHidden(h, inputs[i].ids.length, q8.shape.hidden, 'mean'));
      // The ONNX graph, one text per run (no padding).
      const H = q8.shape.hidden;
      const theirs: Float32Array[] = [];
      for (const s of inputs) {
        const dims = [1, s.ids.length];
        const ids = BigInt64Array.from(s.ids, BigInt);
        const out = await onnxQ8.run({ input_ids: new ort.Tensor('int64', ids, dims), attention_mask: new ort.Tensor('int64', ids.map(() => 1n), dims), token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims) });
        theirs.push(poolHidden(out.last_hidden_state.data as Float32Array, s.ids.length, H, 'mean'));
      }
      const toReference = ours.map((v, i) => cosine(v, REFERENCE.texts[i].embedding));
      const toOnnx = ours.map((v, i) => cosine(v, theirs[i]));
      console.log(`[encoder-runtime-parity] WASM ${wasm.kernels.dot} q8: min cosine ${Math.min(...toReference).toFixed(6)} to sentence-transformers, ${Math.min(...toOnnx).toFixed(6)} to the int8 ONNX graph`);
      expect(inputs.some((s) => s.ids.length === 256)).toBe(true);
      toReference.forEach((c, i) => expect(c, REFERENCE.texts[i].text.slice(0, 60)).toBeGreaterThanOrEqual(0.99));
      toOnnx.forEach((c, i) => expect(c, REFERENCE.texts[i].text.slice(0, 60)).toBeGreaterThanOrEqual(0.99));
    }, 300_000);
  });
});
