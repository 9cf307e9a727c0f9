/**
 * JSON text for the wire. §4.6: NaN/Infinity are not JSON and MUST NOT be emitted, so they are
 * replaced by finite sentinels that keep order (NaN → 0, ±Infinity → ±Number.MAX_VALUE).
 * The output never contains a raw newline (JSON escapes them), so it is a valid NDJSON line.
 */
export function toWire(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'number' || Number.isFinite(v)) return v;
    if (Number.isNaN(v)) return 0;
    return v > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
  });
}

/** True for a plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** §4.7: a request id is a string or a finite number; `null` is reserved for unparseable requests. */
export const isValidId = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * A deep copy of JSON-shaped data (plain objects, arrays, primitives), several times faster than
 * `structuredClone` on the small objects of every hit; anything else (a Date, a typed array)
 * is copied by `structuredClone`.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = copyJson((value as Record<string, unknown>)[k]);
  return out as T;
}
