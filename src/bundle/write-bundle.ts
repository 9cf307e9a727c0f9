/**
 * Turns an engine's store into bundle files (format.ts): the store the CLI's Engine wrote through,
 * read back through the same IndexStore contract any store offers, and cut into the pieces a
 * query reads on demand (its terms' postings, its hits' documents), so what travels is exactly
 * what the engine committed (its postings and BM25 lengths, int8 vectors, documents and chunks).
 */
import type { FineCodes, IndexStore, SegmentRecord, SegmentVectors, StoredChunk, StoredDocument } from '../engine/contracts.ts';
import { tableId, tableMeta } from '../engine/index/doc-table-fields.ts';
import type { LexicalSegmentData } from '../engine/index/segment.ts';
import { keyOrdinal, newDocEntry } from '../engine/index/view.ts';
import { facetValues } from '../engine/query/facets.ts';
import type { FilterFieldType } from '../protocol/types.ts';
import { encodeValue } from './codec.ts';
import {
  BUNDLE_FORMAT, BUNDLE_VERSION, FACET_VALUES, SHARD_HASH, shardsOf, termShardOf, type BundleShards,
  type BundleEngineSettings, type BundleFacets, type BundleFile, type BundleManifest, type BundleModel, type BundleSegment,
  type BundleTextFile, type FineFile, type TextShard,
} from './format.ts';
import { gzip } from './gzip.ts';
import { quantize } from '../engine/index/vectors/quantize.ts';
import { writeStatic, type StaticModelInput } from './write-static.ts';
import { sha256Hex } from './hash.ts';
import type { Analyzer } from '../engine/analysis/analyzer.ts';
import { corpusWords, writeTypos } from './write-typos.ts';
import { encodeCore, encodeTermEntry, encodeTermShard, type CoreSegmentInput, type TermSegmentInput } from './pieces.ts';

/**
 * About this many characters of document text per text shard. A first answer reads its hits'
 * shards (the injection screen needs their texts even without includeText): up to k of them, so
 * small shards keep that to a few KB each, gzipped.
 */
const TEXT_SHARD_CHARS = 4_000;
/**
 * About this many bytes of postings (before gzip) per term shard. A query reads one shard per new
 * term, so the bytes before a first answer are about its terms' own postings plus this per term.
 */
const TERM_SHARD_BYTES = 6_000;

export interface WriteBundleInput {
  store: IndexStore;
  engine: BundleEngineSettings;
  model?: BundleModel;
  /** The model is a static one: also write its rows and the vectors as clustered sign bits (static-format.ts). */
  staticModel?: StaticModelInput;
  fields: Record<string, FilterFieldType>;
  /** The analyser the documents were indexed with: given, the bundle carries typo shards (write-typos.ts). */
  analyzer?: Analyzer;
  generator: string;
  inputKey: string;
  /** Fixed in tests; default now. */
  built?: Date;
}

export interface WrittenBundle {
  manifest: BundleManifest;
  /** Path (relative to the manifest) → bytes. */
  files: Map<string, Uint8Array>;
}

/** A segment as the writer reads it: its record, lexical data and documents by local ordinal. */
interface Source {
  record: SegmentRecord;
  lex: LexicalSegmentData;
  docs: number;
  /** Live (not tombstoned, with a document) per chunk. */
  live: Uint8Array;
}

class Files {
  readonly map = new Map<string, Uint8Array>();

  async add(name: string, value: unknown, compress = true, digits = 16): Promise<BundleFile> {
    const raw = encodeValue(value);
    const bytes = compress ? await gzip(raw) : raw;
    const sha256 = await sha256Hex(bytes);
    const path = `${name}-${sha256.slice(0, digits)}.bin`;
    this.map.set(path, bytes);
    return { path, sha256, bytes: bytes.byteLength, ...(compress ? { gzip: true as const } : {}) };
  }
}

/** Every file of the bundle of `input.store` (which must hold an index). */
export async function writeBundle(input: WriteBundleInput): Promise<WrittenBundle> {
  const loaded = await input.store.load({ documents: 'always' });
  if (!loaded) throw new Error('the index is empty: nothing to bundle');
  const files = new Files();
  const byId = new Map(loaded.segments.map((s) => [s.id, s]));
  const tomb = new Set(loaded.manifest.tombstones);
  const sources: Source[] = loaded.manifest.segmentIds.map((id) => {
    const record = byId.get(id);
    if (!record?.docTable) throw new Error(`segment ${id} has no document table: rebuild the index with this version`);
    const lex = record.lexical as LexicalSegmentData;
    const live = Uint8Array.from(record.docTable.docOf, (d, c) => (d >= 0 && !tomb.has(record.chunkKeys[c]) ? 1 : 0));
    return { record, lex, docs: record.docTable.idEnds.length, live };
  });

  // Documents by ordinal (segment order, then table order), which must be id order for live ones.
  const ids: string[] = [];
  const metas: Record<string, unknown>[] = [];
  const liveDoc: boolean[] = [];
  for (const s of sources) {
    const t = s.record.docTable!;
    const alive = new Uint8Array(s.docs);
    t.docOf.forEach((d, c) => void (d >= 0 && s.live[c] && (alive[d] = 1)));
    for (let d = 0; d < s.docs; d++) {
      ids.push(tableId(t, d));
      metas.push(tableMeta(t, d));
      liveDoc.push(alive[d] === 1);
    }
  }
  let previous: string | undefined;
  ids.forEach((id, o) => {
    if (!liveDoc[o]) return;
    if (previous !== undefined && !(previous < id)) throw new Error(`documents must be added in id order to be bundled ('${previous}' comes before '${id}')`);
    previous = id;
  });

  const stored = await input.store.getDocuments(ids);
  const docs = stored.map((d, o) => (d && liveDoc[o] ? d : null));
  const vectors = input.store.loadVectors ? await input.store.loadVectors(loaded.manifest.segmentIds) : new Map<number, SegmentVectors>();

  const core = await files.add('core', encodeCore(sources.map(coreOf)));
  const terms = await termShards(files, sources);
  const { texts, chunks, fine } = await textShards(files, input.store, sources, docs);
  const segments: BundleSegment[] = [];
  for (const [i, s] of sources.entries()) {
    const seg: BundleSegment = { id: s.record.id, chunks: s.record.chunkKeys.length, docs: s.docs };
    const v = s.record.dense ?? vectors.get(s.record.id);
    if (v) {
      seg.vectors = await files.add(`vectors/${s.record.id}`, v, false);
      const f = fine[i];
      if (f) seg.fine = await files.add(`fine/${s.record.id}`, f, false);
    }
    segments.push(seg);
  }
  const semantic = input.staticModel && input.model
    ? await writeStatic((name, value, digits) => files.add(name, value, true, digits), input.staticModel, sources.map((s) => {
        const v = s.record.dense ?? vectors.get(s.record.id);
        const q = v && ('format' in v ? v : quantize(v));
        return { vectors: q && q.identity === input.model!.identity ? q : undefined, live: s.live };
      }))
    : undefined;
  const typos = input.analyzer
    ? await writeTypos((name, value, digits) => files.add(name, value, true, digits), corpusWords(docs.flatMap((d) => (d ? [d.text] : [])), input.analyzer))
    : undefined;
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    generator: input.generator,
    built: (input.built ?? new Date()).toISOString(),
    inputKey: input.inputKey,
    engine: input.engine,
    ...(input.model ? { model: input.model } : {}),
    documents: docs.filter((d) => d !== null).length,
    chunks,
    fields: input.fields,
    index: loaded.manifest,
    segments,
    core,
    terms,
    texts,
    ids: await files.add('ids', { ids }),
    metas: await files.add('metas', {
      metas,
      versions: Uint32Array.from(docs, (d) => d?.version ?? 0),
      lengths: Uint32Array.from(docs, (d) => d?.text.length ?? 0),
    }),
    facets: facetsOf(input.fields, metas.filter((_, o) => docs[o] !== null)),
    ...(semantic ? { static: semantic } : {}),
    ...(typos ? { typos } : {}),
  };
  return { manifest, files: files.map };
}

function coreOf(s: Source): CoreSegmentInput {
  let lengthSum = 0;
  for (let c = 0; c < s.live.length; c++) if (s.live[c]) lengthSum += s.lex.lengths[c];
  return {
    analyzer: s.lex.analyzer,
    contextWeight: s.lex.contextWeight,
    docs: s.docs,
    lengthSum,
    chunkKeys: s.record.chunkKeys,
    docOf: s.record.docTable!.docOf,
    chunkIndex: s.lex.chunkIndex,
  };
}

/** Every term's postings in every segment, each with its chunk's BM25 length, in hash shards. */
async function termShards(files: Files, sources: readonly Source[]): Promise<BundleShards> {
  const parts = new Map<string, TermSegmentInput[]>();
  sources.forEach((s, segment) => {
    const { terms, offsets, postings, tfs, lengths } = s.lex;
    terms.forEach((term, t) => {
      const at = postings.subarray(offsets[t], offsets[t + 1]);
      let list = parts.get(term);
      if (!list) parts.set(term, (list = []));
      list.push({ segment, postings: at, tfs: tfs.subarray(offsets[t], offsets[t + 1]), lengths: Array.from(at, (c) => lengths[c]) });
    });
  });
  const entries = new Map([...parts].map(([term, p]) => [term, encodeTermEntry(p)]));
  let total = 0;
  for (const e of entries.values()) total += e.length;
  const count = Math.max(1, Math.ceil(total / TERM_SHARD_BYTES));
  const shards: string[][] = Array.from({ length: count }, () => []);
  for (const term of entries.keys()) shards[termShardOf(term, count)].push(term);
  const out: BundleFile[] = [];
  for (const [i, terms] of shards.entries()) {
    terms.sort();
    out.push(await files.add(`terms/${i}`, encodeTermShard(terms, terms.map((t) => entries.get(t)!)), true, SHARD_HASH));
  }
  return shardsOf(out);
}

/** Text shards by ordinal range, and each segment's fine codes by local ordinal. */
async function textShards(files: Files, store: IndexStore, sources: readonly Source[], docs: readonly (StoredDocument | null)[]) {
  const fine: (FineFile | undefined)[] = sources.map(() => undefined);
  const setFine = (key: number, f: FineCodes): void => {
    const i = sources.findIndex((s) => keyOrdinal(s.record.chunkKeys, key) >= 0);
    if (i < 0) return;
    const n = sources[i].record.chunkKeys.length;
    const file = (fine[i] ??= { identity: f.identity, dimension: f.codes.length, has: new Uint8Array(n), scales: new Float32Array(n), codes: new Int8Array(n * f.codes.length) });
    if (file.identity !== f.identity || file.dimension !== f.codes.length) return; // a stale row: rescoring skips it
    const c = keyOrdinal(sources[i].record.chunkKeys, key);
    file.has[c] = 1;
    file.scales[c] = f.scale;
    file.codes.set(f.codes, c * file.dimension);
  };
  const texts: BundleTextFile[] = [];
  let shard: TextShard = { documents: [], chunks: [] };
  let first = 0;
  let chars = 0;
  let chunks = 0;
  const flush = async (next: number): Promise<void> => {
    if (shard.documents.length > 0 || texts.length === 0) texts.push({ ...(await files.add(`texts/${texts.length}`, shard, true, SHARD_HASH)), firstDoc: first });
    shard = { documents: [], chunks: [] };
    first = next;
    chars = 0;
  };
  for (let o = 0; o < docs.length; o++) {
    const d = docs[o];
    shard.documents.push(d);
    if (d) {
      for (const c of await store.getChunks(d.chunkKeys)) {
        if (!c) continue;
        const { fine: f, ...rest } = c;
        shard.chunks.push(rest);
        chunks++;
        if (f) setFine(c.key, f);
      }
      chars += d.text.length;
    }
    if (chars >= TEXT_SHARD_CHARS) await flush(o + 1);
  }
  if (shard.documents.length > 0 || texts.length === 0) await flush(docs.length);
  return { texts: { ...shardsOf(texts), firstDocs: texts.map((t) => t.firstDoc) }, chunks, fine };
}

/** Each keyword field's facet counts, as `x-inpage/facets` would count them over every document. */
function facetsOf(fields: Record<string, FilterFieldType>, metas: readonly Record<string, unknown>[]): Record<string, BundleFacets> {
  const entries = metas.map((m) => newDocEntry('', m, 0, []));
  const out: Record<string, BundleFacets> = {};
  for (const [field, type] of Object.entries(fields)) if (type === 'keyword') out[field] = facetValues(entries, field, FACET_VALUES);
  return out;
}
