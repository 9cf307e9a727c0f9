/**
 * Boundary guards against hostile frames (§15.5): a nesting-depth limit checked before any
 * recursive code (validators, structuredClone, IndexedDB) sees the params, and a cap on how much
 * of a client's value an error may echo back.
 */
import { invalidParams } from './errors.ts';
import type { ErrorObject } from './types.ts';

/** Deepest nesting accepted inside `params` (level 1 = params itself); above the ~70 levels a §8 filter of FILTER_LIMITS.maxDepth (32) may take. */
export const MAX_PARAMS_DEPTH = 128;
/** Longest client-supplied string quoted in an error message. */
export const MAX_ECHO = 64;
/** Longest error message, and longest string member of `error.data`, ever written. */
export const MAX_ERROR_TEXT = 1024;

/**
 * The path (as `data.field`, at most three segments: `_meta.a.a`, `documents[0].meta`) of the
 * first place where `value` nests deeper than `max`, or undefined. Iterative: a 100,000-level
 * value cannot overflow the stack here.
 */
export function tooDeep(value: unknown, max = MAX_PARAMS_DEPTH): string | undefined {
  const stack: { v: unknown; depth: number; path: (string | number)[] }[] = [{ v: value, depth: 1, path: [] }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return fieldOf(path.slice(0, 3));
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1, path: path.length < 3 ? [...path, k] : path });
    }
  }
  return undefined;
}

/** -32602 naming where params nest deeper than the limit, or nothing. */
export function checkDepth(params: unknown): void {
  const at = tooDeep(params);
  if (at !== undefined) throw invalidParams(at || 'params', `nests deeper than ${MAX_PARAMS_DEPTH} levels`);
}

const fieldOf = (path: (string | number)[]): string =>
  path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');

/** A client value quoted for an error message: `'value'`, cut to `max` characters with its length noted. */
export function echo(value: string, max = MAX_ECHO): string {
  return value.length <= max ? `'${value}'` : `'${value.slice(0, max)}…' (${value.length} chars)`;
}

/**
 * The error object with its message and every string in `data` (one level deep) cut to
 * MAX_ERROR_TEXT: whatever a handler put there, an answer never carries a client's megabyte back.
 */
export function capErrorObject(e: ErrorObject): ErrorObject {
  const out: ErrorObject = { code: e.code, message: cut(e.message) };
  if (e.data !== undefined) {
    out.data =
      typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data)
        ? Object.fromEntries(Object.entries(e.data).map(([k, v]) => [k, typeof v === 'string' ? cut(v) : v]))
        : typeof e.data === 'string' ? cut(e.data) : e.data;
  }
  return out;
}

const cut = (s: string): string => (s.length <= MAX_ERROR_TEXT ? s : `${s.slice(0, MAX_ERROR_TEXT)}… (${s.length} chars)`);
