/**
 * The semantic part of a bundle built with a static model (a lookup-table embedder: a query's
 * vector is the normalised sum of its tokens' rows), laid out so a first dense or hybrid answer
 * reads a few KB instead of every vector and the whole model, with no ONNX runtime:
 *
 *   static/core-<hash>.bin      the tokenizer's settings, the vocabulary, row and cluster shards' listing,
 *                               the k-means centroids (int8, one scale each)
 *   static/vocab/<n>-<hash>.bin the vocabulary pieces whose key (pieceKey: first two characters,
 *                               `#` before them for a continuation piece) hashes to n: pieces, ids
 *   static/rows/<n>-<hash>.bin  the embedding rows of token ids [n·ROWS, (n+1)·ROWS), as the
 *                               model file holds them (int8 and a scale per row, or float32)
 *   static/cluster/<n>-<hash>.bin the chunks of cluster n: where each is (segment, local ordinal),
 *                               its residual's sign bits against the centroid and their scale
 *
 * A chunk's score is q·c + α·(q·s) (c its centroid, s = sign(v − c), α = mean |v − c|): an
 * approximation of the exact cosine q·v, over the clusters whose centroids are nearest the query.
 */
import type { BundleFile, BundleShards } from './file-types.ts';

/**
 * About this many bytes of rows per row shard: a query token reads one shard (8 rows of a 256-d
 * int8 model, 20 of a 100-d one). Smaller shards would list more of them in the static core, which
 * every first dense answer reads; the static core says how many rows a shard holds.
 */
export const ROW_SHARD_BYTES = 2_048;

/** How query text becomes token ids (the model's tokenizer.json, the subset static models use). */
export interface StaticTokenizer {
  /** WordPiece (greedy longest match, continuation prefix) or WordLevel (whole words). */
  kind: 'wordpiece' | 'wordlevel';
  lowercase: boolean;
  stripAccents: boolean;
  /** Pad CJK ideographs with spaces (BertNormalizer handle_chinese_chars). */
  chineseChars: boolean;
  cleanText: boolean;
  unkId: number;
  /** '##' for WordPiece. */
  prefix: string;
  /** Longer words are unknown (WordPiece max_input_chars_per_word). */
  maxChars: number;
}

/** The manifest's `static` entry. */
export interface BundleStatic {
  core: BundleFile;
}

/** Listing of shard files kept in the static core (format.ts's compact form). */
export interface StaticCoreValue {
  tokenizer: StaticTokenizer;
  dimension: number;
  vocabSize: number;
  /** How the rows are stored ('q8': int8 codes and a float32 scale per row). */
  rows: 'q8' | 'fp32';
  /** Token ids per row shard: shard n holds ids [n·rowsPerShard, (n+1)·rowsPerShard). */
  rowsPerShard: number;
  vocabShards: BundleShards;
  rowShards: BundleShards;
  clusterShards: BundleShards;
  /** clusters × dimension int8 codes, with one scale per centroid (the centroid is codes · scale). */
  centroids: Int8Array;
  centroidScales: Float32Array;
  /** Chunks per cluster (so a reader can say how many it scored). */
  clusterSizes: Uint32Array;
  /** Clusters a query probes by default. */
  probe: number;
}

export interface VocabShardValue {
  pieces: string[];
  ids: Uint32Array;
}

export interface RowShardValue {
  /** Set when `rows` is 'q8'. */
  codes?: Int8Array;
  scales?: Float32Array;
  /** Set when `rows` is 'fp32'. */
  floats?: Float32Array;
}

export interface ClusterShardValue {
  /** Position of each chunk's segment in the manifest's `segments` (8 bits when there are few). */
  seg: Uint8Array | Uint16Array;
  /** Its local ordinal (16 bits when every segment has fewer than 65,536 chunks). */
  local: Uint16Array | Uint32Array;
  /** dimension / 8 bytes per chunk: bit j set when v_j ≥ c_j. */
  bits: Uint8Array;
  alpha: Float32Array;
}

/**
 * A vocabulary piece's key: its first two code points ('#' before them for a continuation piece),
 * or its only one. Greedy longest match at one position of a word needs the pieces starting with
 * the next two characters there, and the one-character piece only when none of those matches, so
 * each step of a tokenization reads one small shard, whatever the vocabulary's size.
 */
export function pieceKey(piece: string, prefix: string): string {
  const cont = prefix !== '' && piece.startsWith(prefix) && piece.length > prefix.length;
  const rest = [...(cont ? piece.slice(prefix.length) : piece)];
  return (cont ? '#' : '') + rest.slice(0, 2).join('');
}

/** The shard of a vocabulary key. */
export function keyShard(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** Bytes of sign bits per vector. */
export const bitBytes = (dimension: number): number => Math.ceil(dimension / 8);
