import { invalidParams } from './errors.ts';
import type { VectorEncoding } from './types.ts';

/**
 * §7.3.1 compact vector encoding: little-endian IEEE-754 binary32, concatenated, RFC 4648 §4
 * base64 with padding. Base64 is hand-written (no atob/btoa, no Buffer) so the codec behaves the
 * same in pages, workers and Node, and large vectors never go through a binary string.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENCODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 61; // '='
/** Characters turned into a string per String.fromCharCode call (well under engines' argument limits). */
const CHUNK = 8192;

/** RFC 4648 §4 base64 of `bytes`, always padded to a multiple of four characters. Linear time. */
export function bytesToBase64(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let o = 0, i = 0;
  for (; i + 2 < n; i += 3) {
    const t = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = ENCODE[t >> 18];
    out[o++] = ENCODE[(t >> 12) & 63];
    out[o++] = ENCODE[(t >> 6) & 63];
    out[o++] = ENCODE[t & 63];
  }
  if (i < n) {
    const t = (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0);
    out[o++] = ENCODE[t >> 18];
    out[o++] = ENCODE[(t >> 12) & 63];
    out[o++] = i + 1 < n ? ENCODE[(t >> 6) & 63] : PAD;
    out[o++] = PAD;
  }
  const parts: string[] = [];
  for (let j = 0; j < out.length; j += CHUNK) parts.push(String.fromCharCode.apply(null, out.subarray(j, j + CHUNK) as unknown as number[]));
  return parts.join('');
}

const sextet = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? DECODE[c] : -1;
};

/**
 * Decodes padded RFC 4648 §4 base64 in one linear pass. Returns `undefined` (never throws) for
 * anything else: a length not a multiple of four, missing or misplaced padding, whitespace, the
 * URL-safe alphabet, characters outside the alphabet.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  const n = text.length;
  if (n % 4 !== 0) return undefined;
  const pad = n > 0 && text.charCodeAt(n - 1) === PAD ? (text.charCodeAt(n - 2) === PAD ? 2 : 1) : 0;
  const out = new Uint8Array((n / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < n; i += 4) {
    const last = i + 4 === n;
    const a = sextet(text, i), b = sextet(text, i + 1);
    const c = last && pad === 2 ? 0 : sextet(text, i + 2);
    const d = last && pad > 0 ? 0 : sextet(text, i + 3);
    if ((a | b | c | d) < 0) return undefined;
    const t = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = t >> 16;
    if (o < out.length) out[o++] = (t >> 8) & 255;
    if (o < out.length) out[o++] = t & 255;
  }
  return out;
}

/**
 * Encodes a vector as §7.3.1 `f32-base64`. Each component is rounded to binary32 and written
 * little-endian whatever the host byte order. Bit-exact: non-finite components are kept as-is
 * (callers that must not emit them sanitise first; `encodeVectors` does not touch binary blobs).
 */
export function encodeF32Base64(v: ArrayLike<number>): string {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i], true);
  return bytesToBase64(bytes);
}

/**
 * Decodes one §7.3.1 blob. Must be padded base64 of exactly `dimension × 4` bytes; anything else
 * throws RcpError -32602 with `data.field = field` (§7.3.1: "a receiver MUST reject a blob of any
 * other length"). The result is a fresh Float32Array of length `dimension`.
 */
export function decodeF32Base64(blob: string, dimension: number, field: string): Float32Array {
  if (!Number.isSafeInteger(dimension) || dimension < 0) {
    throw invalidParams(field, `dimension must be a non-negative integer, got ${String(dimension)}`);
  }
  if (typeof blob !== 'string') throw invalidParams(field, 'f32-base64 vector must be a string');
  const bytes = base64ToBytes(blob);
  if (bytes === undefined) throw invalidParams(field, 'not valid padded base64 (RFC 4648 §4)');
  if (bytes.length !== dimension * 4) {
    throw invalidParams(field, `decoded ${bytes.length} bytes, expected dimension×4 = ${dimension * 4}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** A JSON-safe copy of `v`: §4.6 forbids NaN/±Infinity on the wire, so they become 0. */
export function toJsonVector(v: ArrayLike<number>): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Number.isFinite(v[i]) ? v[i] : 0;
  return out;
}

/**
 * Encodes a batch for a result (`embed.vectors`, `hit.vector`, `embed/multi` rows) in the
 * encoding the client asked for: `json` → number arrays with every non-finite value replaced by 0;
 * `f32-base64` → one blob per vector. Order and count are preserved.
 */
export function encodeVectors(vectors: Float32Array[], encoding: 'json'): number[][];
export function encodeVectors(vectors: Float32Array[], encoding: 'f32-base64'): string[];
export function encodeVectors(vectors: Float32Array[], encoding: VectorEncoding): number[][] | string[];
export function encodeVectors(vectors: Float32Array[], encoding: VectorEncoding): number[][] | string[] {
  return encoding === 'f32-base64' ? vectors.map(encodeF32Base64) : vectors.map(toJsonVector);
}

/**
 * Decodes a received batch (`vectors`, `matrices[i]`) into Float32Arrays. A blob is checked as in
 * `decodeF32Base64`; a JSON vector must be an array of `dimension` numbers. Errors are -32602 with
 * `data.field` = `${field}[i]`.
 */
export function decodeVectors(
  vectors: readonly unknown[],
  encoding: VectorEncoding,
  dimension: number,
  field: string,
): Float32Array[] {
  return vectors.map((v, i) => {
    const at = `${field}[${i}]`;
    if (encoding === 'f32-base64') return decodeF32Base64(v as string, dimension, at);
    if (!Array.isArray(v) || v.length !== dimension || !v.every((x) => typeof x === 'number')) {
      throw invalidParams(at, `expected an array of ${dimension} numbers`);
    }
    return Float32Array.from(v as number[]);
  });
}
