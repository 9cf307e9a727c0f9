/**
 * Document vectors computed ahead of time with the same model (the sample corpus's, made at install
 * time by scripts/build-sample-vectors.ts), so a known corpus is dense-searchable without running
 * the encoder over it in the page. Rows are found by a hash of the exact text the engine asks to
 * embed: any difference in chunking, context or text misses and falls back to real inference.
 *
 * File (`vectors-<folder>.bin`):
 *   bytes 0..7   magic "RCPVEC2\n"
 *   bytes 8..11  uint32 LE header length N
 *   N bytes      UTF-8 JSON header (PrecomputedHeader), space-padded to a multiple of 8 bytes from the start
 *   count × 8    the first 8 bytes of sha256(UTF-8 text) of each row
 *   count × dimension float32 LE, L2-normalised (as the runtime stores them)
 */

export const VECTORS_MAGIC = 'RCPVEC2\n';

/**
 * Version of what the runtime does between a text and its vector beyond the ONNX file (tokenization,
 * truncation, pooling code). A table made by another version is not used: bump it when that changes.
 */
export const EMBEDDING_RUNTIME_VERSION = 'truncate-before-specials-1';

export interface PrecomputedHeader {
  format: 2;
  /** The §15.7 identity of the model that made the vectors (src/models/manifest.ts). */
  model: string;
  runtime: string;
  /** Only document vectors are stored (a model with prefixes embeds queries differently). */
  kind: 'document';
  dimension: number;
  count: number;
  /** Free-form provenance (folder, dtype, chunker, corpus version): the builder's cache key. */
  [key: string]: unknown;
}

export interface PrecomputedTable {
  header: PrecomputedHeader;
  /** Row of each text hash (16 hex digits). */
  rows: Map<string, number>;
  vectors: Float32Array;
}

/** First 8 bytes of the sha256 of the text's UTF-8, as 16 hex digits. */
export async function textKey(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return hex(digest.subarray(0, 8));
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The file for `texts` (in row order) and their vectors. */
export async function encodePrecomputed(header: { model: string; dimension: number } & Record<string, unknown>, texts: readonly string[], vectors: readonly Float32Array[]): Promise<Uint8Array> {
  const dim = header.dimension;
  if (texts.length !== vectors.length || vectors.some((v) => v.length !== dim)) throw new Error('precomputed vectors: one vector of the header dimension per text');
  const full: PrecomputedHeader = { ...header, model: header.model, dimension: dim, format: 2, runtime: EMBEDDING_RUNTIME_VERSION, kind: 'document', count: texts.length };
  let json = JSON.stringify(full);
  while ((12 + new TextEncoder().encode(json).length) % 8) json += ' ';
  const head = new TextEncoder().encode(json);
  const hashesAt = 12 + head.length;
  const vectorsAt = hashesAt + texts.length * 8;
  const out = new Uint8Array(vectorsAt + texts.length * dim * 4);
  out.set(new TextEncoder().encode(VECTORS_MAGIC), 0);
  new DataView(out.buffer).setUint32(8, head.length, true);
  out.set(head, 12);
  for (let i = 0; i < texts.length; i++) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(texts[i])));
    out.set(digest.subarray(0, 8), hashesAt + i * 8);
  }
  const body = new Float32Array(out.buffer, vectorsAt, texts.length * dim);
  vectors.forEach((v, i) => body.set(v, i * dim));
  return out;
}

/** Only the header (the builder's cache check reads no more). Throws on a file that is not one. */
export function decodePrecomputedHeader(bytes: Uint8Array): PrecomputedHeader {
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 8)) !== VECTORS_MAGIC) throw new Error('not a precomputed vectors file (bad magic)');
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (12 + n > bytes.length) throw new Error('precomputed vectors file is truncated (header)');
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + n))) as PrecomputedHeader;
  if (header.format !== 2 || !(header.dimension > 0) || !(header.count >= 0) || typeof header.model !== 'string') throw new Error('precomputed vectors file: unknown header');
  return header;
}

export function decodePrecomputed(bytes: Uint8Array): PrecomputedTable {
  const header = decodePrecomputedHeader(bytes);
  const n = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  const hashesAt = 12 + n;
  const vectorsAt = hashesAt + header.count * 8;
  if (bytes.length !== vectorsAt + header.count * header.dimension * 4) throw new Error(`precomputed vectors file: ${bytes.length} bytes, the header says ${vectorsAt + header.count * header.dimension * 4}`);
  // A copy when the bytes are not 4-aligned in their buffer (a Float32Array view needs it).
  const aligned = (bytes.byteOffset + vectorsAt) % 4 === 0 ? bytes : bytes.slice();
  const vectors = new Float32Array(aligned.buffer, aligned.byteOffset + vectorsAt, header.count * header.dimension);
  const rows = new Map<string, number>();
  for (let i = 0; i < header.count; i++) rows.set(hex(bytes.subarray(hashesAt + i * 8, hashesAt + i * 8 + 8)), i);
  return { header, rows, vectors };
}

/** Why a table cannot stand in for this model, or undefined when it can. */
export function precomputedMismatch(header: PrecomputedHeader, model: { identity: string; dimension: number }): string | undefined {
  if (header.model !== model.identity) return `made by ${header.model}, the running model is ${model.identity}`;
  if (header.dimension !== model.dimension) return `${header.dimension}-d, the running model is ${model.dimension}-d`;
  if (header.runtime !== EMBEDDING_RUNTIME_VERSION) return `made by embedding runtime '${String(header.runtime)}', this one is '${EMBEDDING_RUNTIME_VERSION}'`;
  return undefined;
}

/** The vectors of `texts` found in the table (copies), undefined where a text is not in it. */
export async function lookupPrecomputed(table: PrecomputedTable, texts: readonly string[]): Promise<(Float32Array | undefined)[]> {
  const d = table.header.dimension;
  const keys = await Promise.all(texts.map(textKey));
  return keys.map((k) => {
    const row = table.rows.get(k);
    return row === undefined ? undefined : table.vectors.slice(row * d, (row + 1) * d);
  });
}

/** File name of a model's table: `vectors-<folder>.bin` ('/' in a folder name becomes '--'). */
export const precomputedFileName = (folder: string): string => `vectors-${folder.replace(/\//g, '--')}.bin`;
