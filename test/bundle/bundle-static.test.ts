/**
 * A bundle built with a static model carries its rows, vocabulary and the vectors as clustered
 * sign bits (src/bundle/static-format.ts): the query vector read from those shards is the model's
 * own, a dense or hybrid answer over the bundle reads no segment vectors and no model file, and
 * its dense hits are the top of an exhaustive scoring of the same codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleStore, type FetchLike } from '../../src/bundle/bundle-store.ts';
import { shardFile } from '../../src/bundle/format.ts';
import { bitBytes, type ClusterShardValue, type StaticCoreValue } from '../../src/bundle/static-format.ts';
import { staticEmbedder } from '../../src/bundle/static-dense.ts';
import { centroid } from '../../src/bundle/write-static.ts';
import { decodeValue } from '../../src/bundle/codec.ts';
import { gunzip } from '../../src/bundle/gzip.ts';
import { Engine } from '../../src/engine/engine.ts';
import { loadEmbedder } from '../../src/models/index.ts';
import { buildIndex } from '../../cli/build-index.ts';
import { search } from '../support/engine.ts';
import { modelsBuilt } from '../support/built-models.ts';
import { ensureModel, GLOVE_MODEL, MODEL_BASE } from '../models/ensure-model.ts';
import { fileFetch, writeSite } from './site-fixture.ts';

const DISTILLED = 'minilm-l6-v2-static-256d';
const DISTILLED_BUILT = modelsBuilt(DISTILLED, [`${MODEL_BASE}${DISTILLED}/onnx/model_quantized.onnx`]);

const QUERIES = ['white whale', 'Ishmael sea voyage', 'the Pequod captain Ahab!', 'Café naïve résumé', 'harpooneers’ line-tub, 1851', 'zzqx unknownword'];

interface Built {
  out: string;
  store: BundleStore;
  fetched: string[];
  engine: Engine;
}

let site: string;
const cleanup: string[] = [];

beforeAll(async () => {
  await ensureModel();
  site = writeSite();
  cleanup.push(site);
}, 120_000);

afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

async function build(model: string): Promise<Built> {
  const out = mkdtempSync(join(tmpdir(), 'rcp-static-'));
  cleanup.push(out);
  await buildIndex({
    input: site,
    out,
    baseUrl: '',
    model: { name: model, folder: `${MODEL_BASE}${model}`, dtype: 'q8', load: () => loadEmbedder({ modelBase: MODEL_BASE, model, dtype: 'q8' }) },
    log: () => undefined,
  });
  const fetched: string[] = [];
  const counting: FetchLike = (url, init) => (fetched.push(url.slice(pathToFileURL(out).href.length + 1)), fileFetch(url, init));
  const store = await BundleStore.open(pathToFileURL(out).href, { fetch: counting, cache: false });
  const engine = new Engine({ store, embedder: staticEmbedder(store.staticDense!, store.manifest), readOnly: true, fields: store.manifest.fields });
  await engine.open();
  return { out, store, fetched, engine };
}

async function readFile<T>(b: Built, path: string): Promise<T> {
  const res = await fileFetch(pathToFileURL(join(b.out, path)).href);
  return decodeValue(await gunzip(new Uint8Array(await res.arrayBuffer()))) as T;
}

for (const model of [GLOVE_MODEL, DISTILLED]) {
  describe.skipIf(model === DISTILLED && !DISTILLED_BUILT)(`a bundle built with ${model}`, () => {
    let b: Built;
    beforeAll(async () => {
      b = await build(model);
    }, 120_000);

    it('embeds a query from its shards exactly as the model does', async () => {
      const reference = await loadEmbedder({ modelBase: MODEL_BASE, model, dtype: 'q8' });
      const want = await reference.embed(QUERIES, 'query');
      for (const [i, q] of QUERIES.entries()) {
        const got = await b.store.staticDense!.embed(q);
        const norm = Math.hypot(...want[i]);
        if (norm === 0) {
          expect(got.every((x) => x === 0), q).toBe(true);
          continue;
        }
        let dot = 0;
        for (let x = 0; x < got.length; x++) dot += got[x] * want[i][x];
        expect(dot / norm, q).toBeGreaterThan(0.99999);
      }
    });

    it('answers dense and hybrid without segment vectors, model files or an ONNX runtime, and says the scores are approximate', async () => {
      b.fetched.length = 0;
      const dense = await search(b.engine, { query: 'ocean storms', mode: 'dense', k: 5 });
      const hybrid = await search(b.engine, { query: 'sailors and their ships', mode: 'hybrid', k: 5 });
      expect(dense.hits.length).toBeGreaterThan(0);
      expect(hybrid.hits.length).toBeGreaterThan(0);
      expect(hybrid.hits.some((h) => h.scores?.dense !== undefined)).toBe(true);
      expect(dense.usage?.notes?.join(' ')).toMatch(/dense scores approximate/);
      expect(b.fetched.some((p) => p.startsWith('vectors/') || p.startsWith('fine/'))).toBe(false);
      expect(b.fetched.some((p) => p.startsWith('static/rows/'))).toBe(true);
      expect(b.fetched.some((p) => p.startsWith('static/cluster/'))).toBe(true);
    });

    it('ranks dense hits as an exhaustive scoring of the same codes (every cluster probed)', async () => {
      const core = await readFile<StaticCoreValue>(b, b.store.manifest.static!.core.path);
      const d = core.dimension;
      const ids = b.store.manifest.segments.map((s) => s.id);
      // Every chunk's approximate cosine, computed here from the decoded shards.
      const all: { seg: number; local: number; score: number }[] = [];
      for (let k = 0; k < core.clusterSizes.length; k++) {
        const v = await readFile<ClusterShardValue>(b, shardFile('static/cluster', core.clusterShards, k).path);
        expect(v.alpha.length).toBe(core.clusterSizes[k]);
        const c = centroid(core.centroids, core.centroidScales, k, d);
        for (const q of [await b.store.staticDense!.embed('white whale')]) {
          for (let i = 0; i < v.alpha.length; i++) {
            let s = 0;
            for (let x = 0; x < d; x++) {
              const bit = v.bits[i * bitBytes(d) + (x >> 3)] & (1 << (x & 7)) ? 1 : -1;
              s += q[x] * (c[x] + v.alpha[i] * bit);
            }
            all.push({ seg: ids[v.seg[i]], local: v.local[i], score: s });
          }
        }
      }
      expect(all.length).toBe(b.store.manifest.chunks);
      const q = await b.store.staticDense!.embed('white whale');
      const near = await b.store.staticDense!.nearest(q, core.clusterSizes.length);
      expect(near.score.length).toBe(all.length);
      const byKey = new Map(all.map((a) => [`${a.seg}/${a.local}`, a.score]));
      for (let i = 0; i < near.score.length; i++) expect(near.score[i]).toBeCloseTo(byKey.get(`${near.segment[i]}/${near.local[i]}`)!, 4);
      // The engine's dense hits (chunk unit) are the exhaustive top, in order.
      const records = (await b.store.load()).segments;
      const top = all.sort((x, y) => y.score - x.score).slice(0, 5);
      const res = await search(b.engine, { query: 'white whale', mode: 'dense', k: 5, includeText: false });
      const keys = res.hits.map((h) => h.scores?.dense);
      expect(keys.map((s) => s!.toFixed(5))).toEqual(top.map((t) => t.score.toFixed(5)));
      expect(records.length).toBe(ids.length);
    });

    it('answers nothing dense for a query the model has no vector for (GloVe: unknown words are zero rows)', async () => {
      const q = await b.store.staticDense!.embed('zzqx qqzx');
      const res = await search(b.engine, { query: 'zzqx qqzx', mode: 'dense', k: 5 });
      if (model === GLOVE_MODEL) expect(q.every((x) => x === 0)).toBe(true);
      // WordPiece spells an unknown word in single characters, which have rows: a direction, so hits.
      expect(res.hits.length).toBe(q.some((x) => x !== 0) ? 5 : 0);
    });
  });
}
