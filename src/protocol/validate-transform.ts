import { TRANSFORM_METHODS, type TransformMethod } from './enums.ts';
import { optionUnsupported } from './errors.ts';
import { echo } from './limits.ts';
import type { Capabilities, Meta } from './types.ts';
import { compact, metaOf, optInt, paramsObject, reqString } from './validate-kit.ts';

/** Variants one `query/transform` call may ask for; a larger `n` is clamped (§12: never an error). */
export const MAX_TRANSFORM_QUERIES = 10;

export interface ValidatedTransform {
  query: string;
  method: TransformMethod;
  /** Effective variant count, 1…MAX_TRANSFORM_QUERIES (default 3). */
  n: number;
  _meta?: Meta;
}

/**
 * §7.8 `query/transform`: `query` a required non-empty string, `method` required; a method string
 * outside `transform.methods` is -32005 `method` (§7.7/§12, as for `mode`), a non-string -32602;
 * `n` an integer ≥ 1, clamped to MAX_TRANSFORM_QUERIES.
 */
export function validateTransform(raw: unknown, caps: Capabilities): ValidatedTransform {
  const o = paramsObject(raw);
  const query = reqString(o, 'query', 'query', { nonEmpty: true });
  const method = reqString(o, 'method', 'method');
  if (!(caps.transform?.methods ?? []).includes(method)) {
    const known = (TRANSFORM_METHODS as readonly string[]).includes(method);
    throw optionUnsupported('method', `transform method ${echo(method)} is ${known ? 'not advertised' : 'not an RCP transform method'}`);
  }
  const n = Math.min(optInt(o, 'n', 'n', { min: 1 }) ?? 3, MAX_TRANSFORM_QUERIES);
  return compact({ query, method: method as TransformMethod, n, ...metaOf(o) });
}
