/**
 * Turns an engine's store into bundle files (format.ts): the store the CLI's Engine wrote through,
 * read back through the same IndexStore contract any store offers, so what travels is exactly
 * what the engine committed (its segments, int8 vectors, documents and chunks).
 */
import type { IndexStore, StoredChunk, StoredDocument } from '../engine/contracts.ts';
import type { FilterFieldType } from '../protocol/types.ts';
import { encodeValue } from './codec.ts';
import {
  BUNDLE_FORMAT, BUNDLE_VERSION, textShardOf,
  type BundleEngineSettings, type BundleFile, type BundleManifest, type BundleModel, type BundleSegment, type TextShard,
} from './format.ts';
import { sha256Hex } from './hash.ts';

/**
 * About this many characters of document text per text shard. Every answer reads its hits' texts
 * (the injection screen needs them even without includeText), so a first answer costs up to k
 * shards: small shards keep that to tens of KB, at a few files per hundred pages.
 */
const SHARD_CHARS = 24_000;

export interface WriteBundleInput {
  store: IndexStore;
  engine: BundleEngineSettings;
  model?: BundleModel;
  fields: Record<string, FilterFieldType>;
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

async function file(files: Map<string, Uint8Array>, dir: string, name: string, bytes: Uint8Array): Promise<BundleFile> {
  const sha256 = await sha256Hex(bytes);
  const path = `${dir}/${name}-${sha256.slice(0, 16)}.bin`;
  files.set(path, bytes);
  return { path, sha256, bytes: bytes.byteLength };
}

/** Every file of the bundle of `input.store` (which must hold an index). */
export async function writeBundle(input: WriteBundleInput): Promise<WrittenBundle> {
  const loaded = await input.store.load({ documents: 'always' });
  if (!loaded) throw new Error('the index is empty: nothing to bundle');
  const files = new Map<string, Uint8Array>();
  const vectors = input.store.loadVectors ? await input.store.loadVectors(loaded.manifest.segmentIds) : new Map();
  const segments: BundleSegment[] = [];
  for (const record of loaded.segments) {
    const { dense, ...rest } = record;
    const v = dense ?? vectors.get(record.id);
    const lexical = await file(files, 'segments', String(record.id), encodeValue({ ...rest, denseApart: v ? { identity: v.identity, dimension: v.dimension } : undefined }));
    const seg: BundleSegment = { id: record.id, chunks: record.chunkKeys.length, lexical };
    if (v) seg.vectors = await file(files, 'vectors', String(record.id), encodeValue(v));
    segments.push(seg);
  }
  const listed = loaded.documents ?? [];
  const ids = listed.map((d) => d.id).sort();
  const docs = (await input.store.getDocuments(ids)).filter((d): d is StoredDocument => d !== undefined);
  const chars = docs.reduce((n, d) => n + d.text.length, 0);
  const shardCount = Math.max(1, Math.ceil(chars / SHARD_CHARS));
  const shards: TextShard[] = Array.from({ length: shardCount }, () => ({ documents: [], chunks: [] }));
  let chunkCount = 0;
  for (const d of docs) {
    const shard = shards[textShardOf(d.id, shardCount)];
    shard.documents.push(d);
    const chunks = (await input.store.getChunks(d.chunkKeys)).filter((c): c is StoredChunk => c !== undefined);
    shard.chunks.push(...chunks);
    chunkCount += chunks.length;
  }
  const texts: BundleFile[] = [];
  for (const [i, shard] of shards.entries()) texts.push(await file(files, 'texts', String(i), encodeValue(shard)));
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    generator: input.generator,
    built: (input.built ?? new Date()).toISOString(),
    inputKey: input.inputKey,
    engine: input.engine,
    ...(input.model ? { model: input.model } : {}),
    documents: docs.length,
    chunks: chunkCount,
    fields: input.fields,
    index: loaded.manifest,
    segments,
    texts,
  };
  return { manifest, files };
}
