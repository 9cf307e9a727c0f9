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

/** Encodes `value` (see the file comment). Throws on what structured clone would not keep (functions, Maps). */
export function encodeValue(value: unknown): Uint8Array {
  const arrays: Typed[] = [];
  let bytes = 0;
  const header = JSON.stringify(value, function (this: unknown, _key, v: unknown) {
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
  });
  const head = new TextEncoder().encode(header);
  const start = align8(VALUE_HEAD + head.length);
  const out = new Uint8Array(start + bytes);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, head.length, true);
  view.setUint32(8, bytes, true);
  out.set(head, VALUE_HEAD);
  let at = start;
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
