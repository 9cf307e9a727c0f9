/**
 * Document preparation for `add`: chunk, build the situating context, analyse, embed. Runs before
 * anything is written, yields to the event loop regularly and honours the abort signal.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError, invalidParams } from '../../protocol/errors.ts';
import { echo, MAX_PARAMS_DEPTH, tooDeep } from '../../protocol/limits.ts';
import { makeTicker, checkAborted } from '../../util/abort.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { LanguageDetector } from '../analysis/language.ts';
import { chunkText, wholeText } from '../analysis/chunker.ts';
import type { Embedder } from '../contracts.ts';
import type { ChunkTerms } from './segment.ts';
import type { PreparedDoc } from './write-plan.ts';

/** A document as given to `Engine.add`. */
export interface AddDocument {
  id?: string;
  text: string;
  meta?: Record<string, unknown>;
}

/**
 * Vectors a caller already has for some chunks (an exported index coming back), keyed by
 * `presetKey(docId, start, end)`, valid only for the model named by `identity`.
 */
export interface PresetVectors {
  identity: string;
  dimension: number;
  vectors: ReadonlyMap<string, Float32Array>;
}

export const presetKey = (id: string, start: number, end: number): string => `${id}\u0000${start}\u0000${end}`;

export interface PrepareOptions {
  analyzer: Analyzer;
  /** Sets `meta.lang` of a document that has none, when it is confident. */
  language?: LanguageDetector;
  embedder?: Embedder;
  /** Reused instead of embedding when every chunk of the batch has one (the caller checked the model identity). */
  preset?: PresetVectors;
  chunk: boolean;
  contextual: boolean;
  chunkSize: number;
  chunkOverlap: number;
  embedBatch: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface Prepared {
  docs: PreparedDoc[];
  chunks: number;
  /** Chunks whose vectors came from `preset` (none were embedded then). */
  reused?: number;
  dense?: { identity: string; dimension: number; vectors: Float32Array };
}

/** Checks the shape of an `add` batch (the engine may be called without the protocol validator). */
export function checkAddDocuments(docs: unknown, maxPerAdd: number): asserts docs is AddDocument[] {
  if (!Array.isArray(docs)) throw invalidParams('documents', 'must be an array');
  if (docs.length > maxPerAdd) {
    throw new RcpError(ErrorCode.PayloadTooLarge, `too many documents: ${docs.length} > ${maxPerAdd}`, {
      field: 'documents',
      detail: `at most ${maxPerAdd} documents per call`,
    });
  }
  docs.forEach((d: Partial<AddDocument> | null, i) => {
    if (!d || typeof d !== 'object' || typeof d.text !== 'string') throw invalidParams(`documents[${i}].text`, 'must be a string');
    if (d.id !== undefined && (typeof d.id !== 'string' || d.id === '')) throw invalidParams(`documents[${i}].id`, 'must be a non-empty string');
    if (d.meta !== undefined && (d.meta === null || typeof d.meta !== 'object' || Array.isArray(d.meta))) {
      throw invalidParams(`documents[${i}].meta`, 'must be an object');
    }
    // The server's boundary limit, for in-process callers too: a deeper meta is what Chromium's
    // structuredClone turned into null (see prepareDocuments).
    if (d.meta !== undefined && tooDeep(d.meta, MAX_PARAMS_DEPTH - 3) !== undefined) {
      throw invalidParams(`documents[${i}].meta`, `nests deeper than ${MAX_PARAMS_DEPTH - 3} levels`);
    }
  });
}

/** Title › heading › subheading, from meta.title and the markdown heading path above the chunk. */
export function contextOf(meta: Record<string, unknown>, headings: readonly string[]): string {
  const title = typeof meta.title === 'string' || typeof meta.title === 'number' ? String(meta.title).trim() : '';
  const parts = title ? [title, ...headings.filter((h, i) => i > 0 || h !== title)] : [...headings];
  return parts.join(' › ');
}

/** The text an embedder sees for a chunk: its context, then its text. */
export const indexedText = (context: string, text: string): string => (context ? `${context}\n${text}` : text);

export async function prepareDocuments(docs: (AddDocument & { id: string })[], o: PrepareOptions): Promise<Prepared> {
  const tick = makeTicker(o.signal);
  const out: PreparedDoc[] = [];
  const embedTexts: string[] = [];
  const presetRows: (Float32Array | undefined)[] = [];
  let chunks = 0;
  for (const d of docs) {
    await tick();
    const meta = d.meta ? structuredClone(d.meta) : {};
    // Chromium's structuredClone answers null, not an error, for a value its deserializer cannot
    // rebuild (too deep): refuse it rather than store meta null. (The batch here is deduplicated,
    // so the document is named by id, not by its request index.)
    if (typeof meta !== 'object' || meta === null) throw invalidParams('documents', `the meta of document ${echo(d.id)} could not be copied (nests too deep?)`);
    if (o.language && meta.lang === undefined) {
      const lang = o.language(d.text);
      if (lang) meta.lang = lang;
    }
    const spans = o.chunk ? chunkText(d.text, o.chunkSize, o.chunkOverlap) : wholeText(d.text);
    const prepared: ChunkTerms[] = [];
    for (const [index, s] of spans.entries()) {
      await tick(); // a huge document is many chunks: let reads (and a cancel) in between
      const body = d.text.slice(s.start, s.end);
      const context = o.contextual ? contextOf(meta, s.headings) : '';
      if (o.embedder) embedTexts.push(indexedText(context, body));
      if (o.preset) presetRows.push(o.preset.vectors.get(presetKey(d.id, s.start, s.end)));
      prepared.push({
        terms: o.analyzer.indexTerms(body),
        contextTerms: context ? o.analyzer.indexTerms(context) : [],
        index,
        start: s.start,
        end: s.end,
        docLength: d.text.length,
        context,
      });
    }
    chunks += prepared.length;
    out.push({ id: d.id, text: d.text, meta, chunks: prepared });
  }
  const total = embedTexts.length || chunks;
  const preset = o.preset;
  if (preset && chunks > 0 && presetRows.every((v) => v !== undefined && v.length === preset.dimension)) {
    // Every chunk came back with its vector from the running model: nothing to embed.
    const vectors = new Float32Array(chunks * preset.dimension);
    presetRows.forEach((v, i) => vectors.set(v!, i * preset.dimension));
    o.onProgress?.(total, total);
    return { docs: out, chunks, reused: chunks, dense: { identity: preset.identity, dimension: preset.dimension, vectors } };
  }
  if (!o.embedder) {
    o.onProgress?.(total, total);
    return { docs: out, chunks };
  }
  const e = o.embedder;
  o.onProgress?.(0, total);
  const vectors = await embedDocuments(e, embedTexts, o.embedBatch, o.signal, (done) => o.onProgress?.(done, total));
  return { docs: out, chunks, dense: { identity: e.identity, dimension: e.dimension, vectors } };
}

/**
 * Embeds passages as documents, `batch` texts per call, into one n × dimension array (row i is
 * text i). The one path by which the engine turns indexed text into stored vectors: `add` and the
 * re-embedding after a model change both use it. Checks the embedder's output shape.
 */
export async function embedDocuments(
  e: Embedder,
  texts: readonly string[],
  batch: number,
  signal?: AbortSignal,
  onProgress?: (done: number) => void,
  /** Awaited before each embedder call (background passes let foreground requests go first). */
  beforeBatch?: () => Promise<void>,
): Promise<Float32Array> {
  const vectors = new Float32Array(texts.length * e.dimension);
  for (let i = 0; i < texts.length; i += batch) {
    await beforeBatch?.();
    checkAborted(signal);
    const slice = texts.slice(i, i + batch);
    const vs = await e.embed(slice, 'document', signal);
    if (vs.length !== slice.length) throw new Error(`embedder returned ${vs.length} vectors for ${slice.length} texts`);
    vs.forEach((v, j) => {
      if (v.length !== e.dimension) throw new Error(`embedder returned dimension ${v.length}, expected ${e.dimension}`);
      vectors.set(v, (i + j) * e.dimension);
    });
    onProgress?.(Math.min(i + slice.length, texts.length));
  }
  checkAborted(signal);
  return vectors;
}
