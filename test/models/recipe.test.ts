/**
 * The encoder recipe (src/models/recipe.ts) — pooling, query/document prefixes, input length — as
 * read from a manifest or from sentence-transformers files, and as applied by TransformersEmbedder
 * on a real (tiny, random-weight) BERT in onnxruntime-node.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_ENCODER, writeTinyBert } from '../../scripts/models/fixtures/tiny-bert.ts';
import { loadEmbedder, resolveModelFolder, type TransformersEmbedder } from '../../src/models/index.ts';
import { lengthOrder } from '../../src/models/embedder.ts';
import { DEFAULT_RECIPE, inCapitals, resolveRecipe, withPrefix } from '../../src/models/recipe.ts';

const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const TEXTS = ['The white whale swam beneath the ship', 'sea', 'a captain of the boat and the harpoon in the water', 'fish'];

describe('resolveRecipe', () => {
  it('defaults to mean pooling, no prefixes, the tokenizer limit', () => {
    expect(resolveRecipe(undefined, {})).toEqual(DEFAULT_RECIPE);
  });

  it('reads sentence-transformers files: [CLS] pooling, prompts, max_seq_length', () => {
    const r = resolveRecipe(undefined, {
      pooling: { pooling_mode_cls_token: true, pooling_mode_mean_tokens: false },
      st: { prompts: { query: 'Represent this sentence for searching relevant passages: ', document: '' } },
      bert: { max_seq_length: 512 },
    });
    expect(r).toEqual({ pooling: 'cls', queryPrefix: 'Represent this sentence for searching relevant passages: ', documentPrefix: '', maxLength: 512 });
    expect(resolveRecipe(undefined, { pooling: { pooling_mode_mean_tokens: true }, bert: { max_seq_length: 256 } })).toEqual({ ...DEFAULT_RECIPE, maxLength: 256 });
  });

  it('a manifest overrides the files; both spellings of prefixes are read', () => {
    const files = { pooling: { pooling_mode_mean_tokens: true } };
    expect(resolveRecipe({ pooling: 'cls', prefixes: { query: 'q: ', document: 'd: ' }, maxLength: 128 }, files)).toEqual({ pooling: 'cls', queryPrefix: 'q: ', documentPrefix: 'd: ', maxLength: 128 });
    expect(resolveRecipe({ pooling: 'mean', queryPrefix: 'query: ' }, {})).toEqual({ ...DEFAULT_RECIPE, queryPrefix: 'query: ' });
  });

  it('refuses poolings it cannot compute rather than serve other vectors', () => {
    expect(() => resolveRecipe(undefined, { pooling: { pooling_mode_max_tokens: true } })).toThrow(/max_tokens.*not supported/);
    expect(() => resolveRecipe({ pooling: 'lasttoken' }, {})).toThrow(/not supported/);
  });

  it('withPrefix prefixes by kind', () => {
    const r = { ...DEFAULT_RECIPE, queryPrefix: 'q: ', documentPrefix: 'd: ' };
    expect(withPrefix(r, ['a', 'b'], 'query')).toEqual(['q: a', 'q: b']);
    expect(withPrefix(r, ['a'], 'document')).toEqual(['d: a']);
    expect(withPrefix(DEFAULT_RECIPE, ['a'], 'query')).toEqual(['a']);
  });

  it('a text in capitals is lowercased for a model whose manifest asks (foldCapitals), after the prefix is chosen', () => {
    const r = resolveRecipe({ pooling: 'mean', prefixes: { query: 'query: ', document: 'passage: ' }, foldCapitals: true }, {});
    expect(r.foldCapitals).toBe(true);
    expect(withPrefix(r, ['MEASUREMENT OF DIELECTRIC CONSTANT', 'What does TSS on IBM computers do?'], 'query')).toEqual(['query: measurement of dielectric constant', 'query: What does TSS on IBM computers do?']);
    expect(withPrefix(r, ['ΣΥΝΤΑΓΜΑ ΤΗΣ ΕΛΛΑΔΑΣ'], 'document')).toEqual(['passage: συνταγμα της ελλαδας']);
    // Without the flag (MiniLM lowercases in its own tokenizer) nothing changes.
    expect(withPrefix(DEFAULT_RECIPE, ['MEASUREMENT OF DIELECTRIC CONSTANT'], 'query')).toEqual(['MEASUREMENT OF DIELECTRIC CONSTANT']);
    expect(resolveRecipe({ pooling: 'mean', foldCapitals: 'yes' }, {}).foldCapitals).toBeUndefined();
  });

  it('inCapitals: 8 or more cased letters, 80% of them upper case; caseless scripts never', () => {
    expect(inCapitals('KENNEDY ADMINISTRATION PRESSURE ON NGO DINH DIEM .')).toBe(true);
    expect(inCapitals('THE U.S . FIRST PROPOSED TO HELP NATO, in short')).toBe(true);
    expect(inCapitals('NASA and IBM')).toBe(false);
    expect(inCapitals('USE IBM')).toBe(false); // too short to tell a heading from acronyms
    expect(inCapitals('Intermediate languages used in construction of compilers; TCOLL')).toBe(false);
    expect(inCapitals('人人生而自由，在尊严和权利上一律平等')).toBe(false);
    expect(inCapitals('')).toBe(false);
  });

  it('lengthOrder sorts shortest first, stable', () => {
    expect(lengthOrder(['ccc', 'a', 'bb', 'a'])).toEqual([1, 3, 2, 0]);
  });
});

describe('TransformersEmbedder applies the recipe (tiny BERT, onnxruntime-node)', () => {
  let base: string;
  let mean: TransformersEmbedder;
  let cls: TransformersEmbedder;
  /** last_hidden_state of each text alone, straight from the ONNX model. */
  let hidden: (dir: string, text: string) => Promise<{ data: Float32Array; seq: number; dim: number }>;

  beforeAll(async () => {
    base = `${mkdtempSync(join(tmpdir(), 'recipe-'))}/`;
    writeTinyBert(join(base, TINY_ENCODER), { seed: 1 });
    // The same weights, declared as a [CLS]-pooled model with a query instruction (as bge is).
    const clsDir = writeTinyBert(join(base, 'tiny-cls'), { seed: 1 });
    writeFileSync(join(clsDir, 'config_sentence_transformers.json'), JSON.stringify({ prompts: { query: 'what is ', document: '' } }));
    writeFileSync(join(base, 'tiny-cls', 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: 16 }));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(clsDir, '1_Pooling'), { recursive: true });
    writeFileSync(join(clsDir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
    mean = await loadEmbedder({ modelBase: base, model: TINY_ENCODER, dtype: 'fp32' });
    cls = await loadEmbedder({ modelBase: base, model: 'tiny-cls', dtype: 'fp32' });
    hidden = async (dir, text) => {
      env.localModelPath = base;
      const raw = (await pipeline('feature-extraction', dir, { device: 'cpu', dtype: 'fp32' })) as FeatureExtractionPipeline;
      const { last_hidden_state } = (await raw.model(raw.tokenizer([text], { padding: true, truncation: true }))) as { last_hidden_state: Tensor };
      await raw.dispose();
      return { data: last_hidden_state.data as Float32Array, seq: last_hidden_state.dims[1], dim: last_hidden_state.dims[2] };
    };
  }, 60_000);
  afterAll(async () => {
    await mean?.dispose();
    await cls?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it('resolves the folder recipes', async () => {
    expect(mean.recipe).toEqual(DEFAULT_RECIPE);
    expect(cls.recipe).toEqual({ pooling: 'cls', queryPrefix: 'what is ', documentPrefix: '', maxLength: 16 });
    expect((await resolveModelFolder(base, 'tiny-cls', 'fp32', true)).recipe.pooling).toBe('cls');
  });

  it('[CLS] pooling = the normalised first row of last_hidden_state (not the mean)', async () => {
    const text = 'the white whale and the ship'; // shorter than the 16-token limit
    const h = await hidden('tiny-cls', text);
    const first = h.data.slice(0, h.dim);
    const n = Math.hypot(...first);
    const expected = first.map((x) => x / n);
    const [v] = await cls.embed([text], 'document');
    expect(maxAbsDiff(v, expected)).toBeLessThan(1e-5);
    const [m] = await mean.embed([text], 'document');
    expect(maxAbsDiff(v, m)).toBeGreaterThan(0.05);
  });

  it('the query prefix is applied for kind query only', async () => {
    const [q] = await cls.embed(['the whale'], 'query');
    const [d] = await cls.embed(['the whale'], 'document');
    const [prefixed] = await cls.embed(['what is the whale'], 'document');
    expect(maxAbsDiff(q, prefixed)).toBeLessThan(1e-6);
    expect(maxAbsDiff(q, d)).toBeGreaterThan(0.01);
    // A model without prefixes is symmetric.
    const [mq] = await mean.embed(['the whale'], 'query');
    const [md] = await mean.embed(['the whale'], 'document');
    expect(maxAbsDiff(mq, md)).toBe(0);
  });

  it('truncates inputs at the recipe length', async () => {
    const long = Array.from({ length: 40 }, () => 'whale').join(' ');
    const [a] = await cls.embed([long], 'document');
    const [b] = await cls.embed([`${long} ship sea captain harpoon`], 'document');
    expect(maxAbsDiff(a, b)).toBe(0); // the words after token 16 are cut
  });

  it('length-bucketed batches give each text the vector it gets alone, in input order', async () => {
    const together = await mean.embed(TEXTS, 'document');
    for (let i = 0; i < TEXTS.length; i++) {
      const [alone] = await mean.embed([TEXTS[i]], 'document');
      expect(maxAbsDiff(together[i], alone)).toBeLessThan(1e-5);
    }
  });
});
