/**
 * Cross-language search with multilingual-e5-small (q8, as the worker runs it) on the sample's
 * declarations: a query in one language finds the article that answers it in every other language
 * (each target language's passages kept apart with the `lang` filter, so the query's own language
 * cannot win by shared words). This is what the playground shows once the multilingual model is
 * picked; with MiniLM (English only) these queries find nothing outside their own language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { E5_SMALL } from '../../scripts/models/encoders.ts';
import { buildSample } from '../../scripts/build-sample.ts';
import { Engine } from '../../src/engine/engine.ts';
import { loadEmbedder, type TransformersEmbedder } from '../../src/models/index.ts';
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { modelsBuilt } from '../support/built-models.ts';

const FOLDER = `${MODELS_DIR}/${E5_SMALL.name}`;
const BUILT = modelsBuilt(E5_SMALL.name, [`${FOLDER}/manifest.json`, `${FOLDER}/onnx/model_quantized.onnx`, `${FOLDER}/tokenizer.json`]);

/** Queries in five languages and scripts, each answered by one article. */
const QUERIES: { lang: string; query: string; article: number }[] = [
  { lang: 'en', query: 'no one shall be held in slavery', article: 4 },
  { lang: 'de', query: 'Recht auf Bildung', article: 26 },
  { lang: 'ja', query: '宗教の自由', article: 18 },
  { lang: 'es', query: 'derecho al trabajo y a un salario igual', article: 23 },
  { lang: 'ru', query: 'право на жизнь и свободу', article: 3 },
];
const ARTICLES = new Set(QUERIES.map((q) => q.article));

describe.skipIf(!BUILT)('cross-language search over the sample declarations (multilingual-e5-small)', () => {
  let embedder: TransformersEmbedder;
  let engine: Engine;
  const docs = buildSample().documents.filter((d) => d.meta.source === 'udhr' && ARTICLES.has(d.meta.article ?? -1));
  const langs = [...new Set(docs.map((d) => d.meta.lang!))];

  beforeAll(async () => {
    embedder = await loadEmbedder({ modelBase: `${MODELS_DIR}/`, model: E5_SMALL.name, dtype: 'q8' });
    engine = new Engine({ store: new MemoryStore(), embedder });
    await engine.open();
    await engine.add(docs.map((d) => ({ id: d.id, text: d.text, meta: d.meta as unknown as Record<string, unknown> })), { chunk: true, contextual: true });
  }, 600_000);
  afterAll(async () => embedder?.dispose());

  it("tokenizes through our Unigram model on transformers.js's runtime too (not its slow-loading one)", () => {
    expect(embedder.runtime).toMatch(/^transformers\.js/);
    const model = (embedder as unknown as { extractor: { tokenizer: { _tokenizer: { model: unknown } } } }).extractor.tokenizer._tokenizer.model;
    // Ours is a plain closure (unigram-model.ts); transformers.js's is an instance of its Unigram class.
    expect(Object.getPrototypeOf(model)).toBe(Function.prototype);
  });

  it('a query in one language finds the answering article in each of the other eleven (dense, lang filter)', async () => {
    const misses: string[] = [];
    for (const q of QUERIES) {
      for (const lang of langs.filter((l) => l !== q.lang)) {
        const r = await retrieveInProcess(engine, { query: q.query, k: 1, mode: 'dense', filter: { field: 'lang', op: 'eq', value: lang } });
        const got = docs.find((d) => d.id === r.hits[0]?.id)?.meta.article;
        if (got !== q.article) misses.push(`${q.lang}→${lang}: article ${got} for "${q.query}"`);
      }
    }
    // Measured: 54 of 55 (the miss: ru→hi, "право на жизнь и свободу" — life and *liberty* — finds
    // article 18, freedom of thought). MiniLM finds almost none; the bound leaves room for one more miss.
    const pairs = QUERIES.length * (langs.length - 1);
    console.log(`[cross-language] ${pairs - misses.length} of ${pairs} query→language pairs top-1 correct${misses.length ? `; misses: ${misses.join('; ')}` : ''}`);
    expect(pairs - misses.length).toBeGreaterThanOrEqual(pairs - 2);
  }, 600_000);

  it('without a filter, the default hybrid mode finds the article in most languages among the top 12', async () => {
    const r = await retrieveInProcess(engine, { query: 'Recht auf Bildung', k: 12 });
    const articles = r.hits.map((h) => docs.find((d) => d.id === h.id)?.meta.article);
    // Measured: 8 of the 12 (the sparse half of the fusion also ranks German articles that share
    // "Recht"). Keyword search alone would give article 26 in German only.
    const found = r.hits.filter((_, i) => articles[i] === 26).map((h) => docs.find((d) => d.id === h.id)?.meta.lang);
    expect(found.length).toBeGreaterThanOrEqual(7);
    expect(new Set(found).size).toBe(found.length);
    expect(found).toContain('de');
  }, 600_000);
});
