import { invalidParams } from './errors.ts';
import { isObject as isRecord } from './json.ts';
import type { Meta } from './types.ts';

/**
 * Small readers for untrusted params. Every reader:
 * - treats a missing member and a JSON `null` alike as absent (§4.6) and returns `undefined`;
 * - reads own properties only (`__proto__`, `toString` are never picked up from the prototype);
 * - throws `invalidParams(field, detail)` (-32602, `data.field` = the dotted/bracketed path such
 *   as `rerank.topN` or `documents[2].text`) when the value has the wrong JSON type or range;
 * - never rejects unknown members (§4.6 forward compatibility).
 */

/** A JSON object as read from the wire. */
export type Obj = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export { isRecord };

/** `base.key` or `base[i]`; an empty base yields the bare key. */
export const fieldPath = (base: string, key: string | number): string =>
  typeof key === 'number' ? `${base}[${key}]` : base ? `${base}.${key}` : key;

/** §4.6 integer: a JSON number with no fractional part inside the double-exact ±(2^53 − 1). */
export const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** The params object of a request: absent or `null` params are `{}`; anything else but an object is -32602. */
export function paramsObject(raw: unknown): Obj {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw invalidParams('params', 'must be an object (by-name params)');
  return raw;
}

/** `v` as an object, or -32602 at `field`. */
export function expectObject(v: unknown, field: string): Obj {
  if (!isRecord(v)) throw invalidParams(field, 'must be an object');
  return v;
}

/** An own, non-null member of `obj`, else `undefined`. */
export const read = (obj: Obj, key: string): unknown =>
  Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined;

/** Like `read`, but a missing member is -32602 "is required". */
export function required(obj: Obj, key: string, field = key): unknown {
  const v = read(obj, key);
  if (v === undefined) throw invalidParams(field, 'is required');
  return v;
}

/** Optional object member. */
export function optObject(obj: Obj, key: string, field = key): Obj | undefined {
  const v = read(obj, key);
  return v === undefined ? undefined : expectObject(v, field);
}

/** Numeric bounds for `optInt`/`optNumber`; all inclusive except `above`. */
export interface Range {
  min?: number;
  max?: number;
  /** Lower bound that the value must exceed (strictly). */
  above?: number;
}

function checkRange(v: number, field: string, r: Range): number {
  if (r.min !== undefined && v < r.min) throw invalidParams(field, `must be ≥ ${r.min}, got ${v}`);
  if (r.above !== undefined && v <= r.above) throw invalidParams(field, `must be > ${r.above}, got ${v}`);
  if (r.max !== undefined && v > r.max) throw invalidParams(field, `must be ≤ ${r.max}, got ${v}`);
  return v;
}

/** Optional §4.6 integer within `range` (negative or fractional counts are -32602). */
export function optInt(obj: Obj, key: string, field = key, range: Range = {}): number | undefined {
  const v = read(obj, key);
  if (v === undefined) return undefined;
  if (!isInteger(v)) throw invalidParams(field, `must be an integer, got ${describe(v)}`);
  return checkRange(v, field, range);
}

/** Optional finite number within `range`. */
export function optNumber(obj: Obj, key: string, field = key, range: Range = {}): number | undefined {
  const v = read(obj, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidParams(field, `must be a finite number, got ${describe(v)}`);
  return checkRange(v, field, range);
}

/** Optional boolean; §4.6 forbids `0`/`1`/`"true"`, so those are -32602. */
export function optBool(obj: Obj, key: string, field = key): boolean | undefined {
  const v = read(obj, key);
  if (v === undefined || typeof v === 'boolean') return v;
  throw invalidParams(field, `must be a boolean, got ${describe(v)}`);
}

/** Optional string; `nonEmpty` also rejects `""`. */
export function optString(obj: Obj, key: string, field = key, opts: { nonEmpty?: boolean } = {}): string | undefined {
  const v = read(obj, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalidParams(field, `must be a string, got ${describe(v)}`);
  if (opts.nonEmpty && v === '') throw invalidParams(field, 'must not be empty');
  return v;
}

/** Required string. */
export function reqString(obj: Obj, key: string, field = key, opts: { nonEmpty?: boolean } = {}): string {
  required(obj, key, field);
  return optString(obj, key, field, opts) as string;
}

/** Optional member that must be one of `allowed` (case-sensitive, §4.6 enums). */
export function optEnum<T extends string>(obj: Obj, key: string, field: string, allowed: readonly T[]): T | undefined {
  const v = read(obj, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalidParams(field, `must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}

/**
 * Optional value of an option the server advertises a set for (`mode`, `unit`, `fusion.method`,
 * `rerank.method`, `encoding`, `rewrite`, …): any string passes here, typed as `T`; whether it is
 * in the advertised set is the gating's question, answered -32005 with `data.option` (§7.7, §12:
 * "a requested option value … not in the advertised set"), also for strings RCP does not define.
 * Only a non-string is malformed (-32602).
 */
export function optOption<T extends string>(obj: Obj, key: string, field = key): T | undefined {
  return optString(obj, key, field) as T | undefined;
}

/** Optional array member. */
export function optArray(obj: Obj, key: string, field = key): unknown[] | undefined {
  const v = read(obj, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw invalidParams(field, `must be an array, got ${describe(v)}`);
  return v;
}

/** An array whose every element is a string; errors name the element (`ids[3]`). */
export function stringArray(v: unknown[], field: string): string[] {
  v.forEach((s, i) => {
    if (typeof s !== 'string') throw invalidParams(fieldPath(field, i), `must be a string, got ${describe(s)}`);
  });
  return v as string[];
}

/** `{ _meta }` when `obj._meta` is an object (always allowed, never validated further), else `{}`. */
export function metaOf(obj: Obj): { _meta?: Meta } {
  const m = read(obj, '_meta');
  return isRecord(m) ? { _meta: m as Meta } : {};
}

/** UTF-8 byte length of a JS string, without TextEncoder (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Drops `undefined` members so results compare and serialise cleanly. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** A short description of a bad value for error details (never echoes long strings). */
function describe(v: unknown): string {
  if (typeof v === 'string') return v.length > 32 ? 'a long string' : JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'a non-finite number';
  if (Array.isArray(v)) return 'an array';
  return v === null ? 'null' : typeof v === 'object' ? 'an object' : typeof v;
}
