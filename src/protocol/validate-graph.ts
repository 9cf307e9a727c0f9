import { optionUnsupported, invalidParams, payloadTooLarge } from './errors.ts';
import { echo } from './limits.ts';
import type { Capabilities, RetrieveMode } from './types.ts';
import { isRecord, optArray, optBool, optInt, optString, paramsObject, read, reqString, stringArray } from './validate-kit.ts';

/** The ops a server may serve (§7.9); `graph.ops` says which it does. */
export const GRAPH_OPS = Object.freeze(['local', 'global', 'drift', 'communities', 'neighbors'] as const);

/** `_meta` flag: each passage node of `neighbors` carries its text as `x-inpage-text`; each listed member of `communities` comes with its text in `x-inpage-passages`. */
export const GRAPH_TEXT_FIELD = 'x-inpage-text';
/** `_meta` member of `communities`: one community id (`c<level>.<rank>`, as listed) to answer with alone. */
export const GRAPH_COMMUNITY_FIELD = 'x-inpage-community';

/** A `graph` request validated against the session's `graph` capability, counts defaulted and clamped. */
export interface ValidatedGraph {
  op: 'neighbors' | 'local' | 'communities' | 'global';
  query?: string;
  k: number;
  seedIds: string[];
  hops: number;
  level: number;
  text: boolean;
  /** `communities` only: the one community asked for (`_meta["x-inpage-community"]`). */
  community?: string;
  /** The mode seed hits are retrieved in: the session's advertised default (§3.3), as for a retrieve naming none. */
  seedMode: RetrieveMode;
  /** Clamps applied, for `usage.notes`. */
  notes: string[];
}

const DEFAULT_K = { neighbors: 10, local: 10, communities: 50, global: 10 } as const;

/**
 * §7.9 `graph`: `op` required, and -32005 (`data.option: "op"`) unless in `graph.ops`; `query` a
 * non-empty string, required by `local` (unless `seedIds` are given) and `global`; `seedIds`
 * strings (required by `neighbors`, at most `graph.maxSeeds`: -32013 beyond); `k` and `hops`
 * integers ≥ 1, clamped to `graph.maxK` / `graph.maxHops` with a note; `level` an integer ≥ 0.
 */
export function validateGraph(raw: unknown, caps: Capabilities): ValidatedGraph {
  const o = paramsObject(raw);
  const cap = caps.graph;
  const op = reqString(o, 'op', 'op');
  if (!(cap?.ops ?? []).includes(op)) {
    const known = (GRAPH_OPS as readonly string[]).includes(op);
    throw optionUnsupported('op', `graph op ${echo(op)} is ${known ? 'not served here' : 'not an RCP graph op'} (served: ${(cap?.ops ?? []).join(', ') || 'none'})`);
  }
  const valid = op as ValidatedGraph['op'];
  const notes: string[] = [];
  const query = optString(o, 'query', 'query');
  if (query !== undefined && query.trim() === '') throw invalidParams('query', 'must not be empty');
  const seedsRaw = optArray(o, 'seedIds', 'seedIds');
  const seedIds = seedsRaw ? stringArray(seedsRaw, 'seedIds') : [];
  const maxSeeds = cap?.maxSeeds ?? Infinity;
  if (seedIds.length > maxSeeds) throw payloadTooLarge('seedIds', `at most ${maxSeeds} seed ids, got ${seedIds.length}`);
  if (valid === 'neighbors' && seedIds.length === 0) throw invalidParams('seedIds', `is required (at least one id) for op 'neighbors'`);
  if (valid === 'global' && query === undefined) throw invalidParams('query', `is required for op 'global'`);
  if (valid === 'local' && query === undefined && seedIds.length === 0) throw invalidParams('query', `is required for op 'local' (or give seedIds)`);
  const clamp = (name: 'k' | 'hops', v: number, max: number | undefined): number => {
    if (max === undefined || v <= max) return v;
    notes.push(`${name} ${v} clamped to the advertised ${name === 'k' ? 'maxK' : 'maxHops'} ${max}`);
    return max;
  };
  const k = clamp('k', optInt(o, 'k', 'k', { min: 1 }) ?? DEFAULT_K[valid], cap?.maxK);
  const hops = clamp('hops', optInt(o, 'hops', 'hops', { min: 1 }) ?? 1, cap?.maxHops);
  const level = optInt(o, 'level', 'level', { min: 0 }) ?? 0;
  const meta = read(o, '_meta');
  const text = isRecord(meta) ? (optBool(meta, GRAPH_TEXT_FIELD, `_meta.${GRAPH_TEXT_FIELD}`) ?? false) : false;
  const community = isRecord(meta) ? optString(meta, GRAPH_COMMUNITY_FIELD, `_meta.${GRAPH_COMMUNITY_FIELD}`) : undefined;
  if (community !== undefined && valid !== 'communities') throw invalidParams(`_meta.${GRAPH_COMMUNITY_FIELD}`, `applies to op 'communities' only`);
  const seedMode = caps.retrieve?.defaultMode ?? 'sparse';
  return { op: valid, ...(query !== undefined ? { query } : {}), k, seedIds, hops, level, text, ...(community !== undefined ? { community } : {}), seedMode, notes };
}
