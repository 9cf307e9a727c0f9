/**
 * The byte form of every bundle file but the manifest: a structured-clone-able value (objects,
 * arrays, strings, numbers, booleans, null and typed arrays — what the engine hands its store) as
 *
 *   magic "RCPB" | u32 header length | u32 data length | header JSON (UTF-8) | zero padding to 8 | typed-array bytes
 *
 * The header is the value with each typed array replaced by `{"$t": type, "o": offset, "n": length}`
 * into the byte area (little-endian, each array 8-aligned), so a file describes itself and decodes
 * with no schema, and arrays decode as views of one buffer (no per-element copy).
 */

import type { Sliced } from '../util/slices.ts';

const MAGIC = 0x42504352; // "RCPB" little-endian
const TYPED = {
  Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array,
} as const;
type TypedName = keyof typeof TYPED;
type Typed = InstanceType<(typeof TYPED)[TypedName]>;

interface ArrayRef {
  $t: TypedName;
  o: number;
  n: number;
}

/** A file that is not a bundle file, or is damaged. */
export class BundleFormatError extends Error {
  override readonly name = 'BundleFormatError';
}

/** Bytes before the header JSON: magic, header length, data length. */
export const VALUE_HEAD = 12;
const align8 = (n: number): number => (n + 7) & ~7;

function typedName(v: unknown): TypedName | undefined {
  if (!ArrayBuffer.isView(v) || v instanceof DataView) return undefined;
  const name = v.constructor.name as TypedName;
  return name in TYPED ? name : undefined;
}

/** The header's replacer: typed arrays become references into the byte area, in the order met. */
function arrayRefs(): { replacer: (this: unknown, key: string, v: unknown) => unknown; arrays: Typed[]; bytes: () => number } {
  const arrays: Typed[] = [];
  let bytes = 0;
  const replacer = function (this: unknown, _key: string, v: unknown) {
    const t = typedName(v);
    if (t) {
      const a = v as Typed;
      const ref: ArrayRef = { $t: t, o: bytes, n: a.length };
      arrays.push(a);
      bytes = align8(bytes + a.byteLength);
      return ref;
    }
    if (v instanceof Map || v instanceof Set || typeof v === 'function' || typeof v === 'bigint') throw new TypeError('bundle values hold plain data and typed arrays only');
    return v;
  };
  return { replacer, arrays, bytes: () => bytes };
}

/** Encodes `value` (see the file comment). Throws on what structured clone would not keep (functions, Maps). */
export function encodeValue(value: unknown): Uint8Array {
  const refs = arrayRefs();
  return assemble([new TextEncoder().encode(JSON.stringify(value, refs.replacer))], refs.arrays, refs.bytes());
}

/**
 * `encodeValue` as work that pauses (src/util/slices.ts), for a value too large to encode at once
 * on the engine worker's thread (the recovery log's base: 22 MB took 0.9 s in Firefox under load).
 * The same bytes: the header is the same JSON, written a part at a time.
 */
export function* encodeValueInSlices(value: unknown): Sliced<Uint8Array> {
  const refs = arrayRefs();
  const parts: string[] = [];
  yield* headerParts(value, refs.replacer, parts, 0);
  // UTF-8 a part at a time (each part is whole JSON tokens, so no character is split).
  const encoder = new TextEncoder();
  const heads: Uint8Array[] = [];
  for (let i = 0; i < parts.length; i += 4096) {
    heads.push(encoder.encode(parts.slice(i, i + 4096).join('')));
    yield;
  }
  return assemble(heads, refs.arrays, refs.bytes());
}

/** Parts deeper than this are one JSON.stringify call each (a recovery-log base nests its large arrays 4–5 deep). */
const PART_DEPTH = 8;

/** Appends `v`'s JSON (as `JSON.stringify(v, replacer)` writes it) to `out`; false when it has none (undefined, a symbol). */
function* headerParts(v: unknown, replacer: (this: unknown, key: string, v: unknown) => unknown, out: string[], depth: number): Sliced<boolean> {
  const walk = depth < PART_DEPTH && v !== null && typeof v === 'object' && !typedName(v) && !(v instanceof Map || v instanceof Set) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
  if (!walk) {
    const json = JSON.stringify(v, replacer) as string | undefined;
    yield;
    if (json === undefined) return false;
    out.push(json);
    return true;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i) out.push(',');
      if (!(yield* headerParts(v[i], replacer, out, depth + 1))) out.push('null');
    }
    out.push(']');
    return true;
  }
  out.push('{');
  let first = true;
  for (const [key, x] of Object.entries(v as Record<string, unknown>)) {
    const at = out.length;
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    if (yield* headerParts(x, replacer, out, depth + 1)) first = false;
    else out.length = at; // a member JSON leaves out
  }
  out.push('}');
  return true;
}

/** The file: magic, lengths, the header's UTF-8 (in pieces), padding, then each typed array 8-aligned. */
function assemble(heads: Uint8Array[], arrays: Typed[], bytes: number): Uint8Array {
  const headBytes = heads.reduce((n, h) => n + h.length, 0);
  const start = align8(VALUE_HEAD + headBytes);
  const out = new Uint8Array(start + bytes);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, headBytes, true);
  view.setUint32(8, bytes, true);
  let at = VALUE_HEAD;
  for (const h of heads) out.set(h, (at += h.length) - h.length);
  at = start;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at = align8(at + a.byteLength);
  }
  return out;
}

/**
 * Decodes what `encodeValue` wrote; typed arrays are views of `bytes` (copied first when
 * misaligned), or each its own copy with `own: true`. A value that is handed on to IndexedDB needs
 * its own: structured clone copies a view's whole buffer, so 1,500 passages viewing one 38 MB log
 * file were cloned as 57 GB (a recovery catch-up that never finished).
 */
export function decodeValue(bytes: Uint8Array, o: { own?: boolean } = {}): unknown {
  if (bytes.byteLength < VALUE_HEAD) throw new BundleFormatError('truncated bundle file (no header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new BundleFormatError('not a bundle file (bad magic number)');
  const length = view.getUint32(4, true);
  const start = align8(VALUE_HEAD + length);
  if (start + view.getUint32(8, true) !== bytes.byteLength) throw new BundleFormatError(`truncated bundle file (${bytes.byteLength} bytes, its header says ${start + view.getUint32(8, true)})`);
  // Typed arrays need their element alignment: decode from an aligned copy if the input is not.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const area = own.byteOffset + start;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(own.subarray(VALUE_HEAD, VALUE_HEAD + length)));
  } catch {
    throw new BundleFormatError('damaged bundle file (header is not JSON)');
  }
  return revive(header, own.buffer as ArrayBuffer, area, own.byteOffset + own.byteLength, o.own === true);
}

function revive(v: unknown, buffer: ArrayBuffer, area: number, end: number, copy: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => revive(x, buffer, area, end, copy));
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$t === 'string' && typeof o.o === 'number' && typeof o.n === 'number') {
    const Ctor = TYPED[o.$t as TypedName];
    if (!Ctor) throw new BundleFormatError(`damaged bundle file (unknown array type ${o.$t})`);
    const from = area + o.o;
    if (from + o.n * Ctor.BYTES_PER_ELEMENT > end) throw new BundleFormatError('truncated bundle file (array data cut short)');
    const view = new Ctor(buffer, from, o.n);
    return copy ? view.slice() : view;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) out[k] = revive(x, buffer, area, end, copy);
  return out;
}
