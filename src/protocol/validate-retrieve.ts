import { echo } from './limits.ts';
import { validateQuery } from './content.ts';
import type { TransformMethod } from './enums.ts';
import { invalidParams } from './errors.ts';
import { filterFieldTypes, validateFilter } from './filter.ts';
import { gateRetrieve } from './retrieve-gating.ts';
import type { Capabilities, FusionMethod, Modality, RerankMethod, RetrieveMode, RetrieveParams, Unit, VectorEncoding } from './types.ts';
import {
  compact, metaOf, optBool, optInt, optNumber, optObject, optOption, optString, paramsObject, read, reqString, type Obj,
} from './validate-kit.ts';

/** A validated `retrieve` request plus the degradations applied under `strict:false` (for `usage.notes`). */
export interface ValidatedRetrieve {
  params: RetrieveParams;
  notes: string[];
}

/**
 * Validates `retrieve` params (§7.7) against the advertised capabilities, in three passes:
 * 1. structure (-32602, `data.field`): types, ranges, enums, the filter tree (§8), recency field;
 * 2. the funnel (§3.3): `candidateK ≥ rerank.topN ≥ k` among the values the client gave;
 * 3. gating (-32005, `data.option`) of every option the server did not advertise — see
 *    `gateRetrieve`; with `strict:false` (default `true`) most are dropped and noted instead.
 * Values above `maxK`/`maxCandidates` are not errors (§12): use `clampFunnel` for effective counts.
 * Absent `k` stays absent here (its default, 10, is applied by `clampFunnel`); `strict` is always set.
 * Unknown members are ignored; `_meta` passes through untouched.
 */
export function validateRetrieve(raw: unknown, caps: Capabilities): ValidatedRetrieve {
  const o = paramsObject(raw);
  const strict = optBool(o, 'strict') ?? true;
  const retrieveCaps = caps.retrieve ?? {};
  const params: RetrieveParams = {
    query: validateQuery(read(o, 'query'), 'query', retrieveCaps.modalities ?? ['text']),
    k: optInt(o, 'k', 'k', { min: 1 }),
    // §7.7/§12: any mode string outside the advertised set is -32005 (gating); only a non-string is -32602.
    mode: optOption<RetrieveMode>(o, 'mode'),
    modality: optOption<Modality>(o, 'modality'),
    candidateK: optInt(o, 'candidateK', 'candidateK', { min: 1 }),
    fusion: parseFusion(o),
    rerank: parseRerank(o),
    mmr: parseMmr(o),
    rewrite: parseRewrite(o),
    minScore: optNumber(o, 'minScore'),
    recency: parseRecency(o, caps),
    unit: optOption<Unit>(o, 'unit'),
    level: optInt(o, 'level', 'level', { min: 0 }),
    tokenBudget: optInt(o, 'tokenBudget', 'tokenBudget', { min: 1 }),
    sessionId: optString(o, 'sessionId'),
    includeText: optBool(o, 'includeText'),
    includeVectors: optBool(o, 'includeVectors'),
    encoding: optOption<VectorEncoding>(o, 'encoding'),
    seed: optInt(o, 'seed'),
    indexVersion: optString(o, 'indexVersion'),
    strict,
    cursor: optString(o, 'cursor'),
    ...metaOf(o),
  };
  const rawFilter = read(o, 'filter');
  if (rawFilter !== undefined && caps.filter) params.filter = validateFilter(rawFilter, caps.filter, 'filter');
  checkFunnel(params);
  const notes: string[] = [];
  gateRetrieve(params, caps, { strict, notes, filterRequested: rawFilter !== undefined });
  return { params: compact(params), notes };
}

/** §3.3 funnel among the values the client actually sent. */
function checkFunnel(p: RetrieveParams): void {
  const topN = p.rerank ? p.rerank.topN : undefined;
  if (p.candidateK !== undefined && p.k !== undefined && p.candidateK < p.k) {
    throw invalidParams('candidateK', `candidateK (${p.candidateK}) must be ≥ k (${p.k}) (§3.3)`);
  }
  if (topN !== undefined && p.k !== undefined && topN < p.k) {
    throw invalidParams('rerank.topN', `rerank.topN (${topN}) must be ≥ k (${p.k}) (§3.3)`);
  }
  if (topN !== undefined && p.candidateK !== undefined && p.candidateK < topN) {
    throw invalidParams('candidateK', `candidateK (${p.candidateK}) must be ≥ rerank.topN (${topN}) (§3.3)`);
  }
}

function parseFusion(o: Obj): RetrieveParams['fusion'] {
  const f = optObject(o, 'fusion');
  if (!f) return undefined;
  const w = optObject(f, 'weights', 'fusion.weights');
  const weights = w && compact({
    dense: optNumber(w, 'dense', 'fusion.weights.dense', { min: 0 }),
    sparse: optNumber(w, 'sparse', 'fusion.weights.sparse', { min: 0 }),
  });
  return compact({
    // §16.3: RRF is the default strategy.
    method: optOption<FusionMethod>(f, 'method', 'fusion.method') ?? 'rrf',
    weights,
    rrfK: optNumber(f, 'rrfK', 'fusion.rrfK', { above: 0 }),
    alpha: optNumber(f, 'alpha', 'fusion.alpha', { min: 0, max: 1 }),
  });
}

function parseRerank(o: Obj): RetrieveParams['rerank'] {
  const v = read(o, 'rerank');
  if (v === undefined || v === false) return v;
  const r = optObject(o, 'rerank');
  if (!r) return undefined;
  // `method` is resolved during gating when absent (the server's first advertised method).
  return compact({
    method: optOption<RerankMethod>(r, 'method', 'rerank.method'),
    model: optString(r, 'model', 'rerank.model'),
    topN: optInt(r, 'topN', 'rerank.topN', { min: 1 }),
  }) as RetrieveParams['rerank'];
}

function parseMmr(o: Obj): RetrieveParams['mmr'] {
  const m = optObject(o, 'mmr');
  return m && { lambda: optNumber(m, 'lambda', 'mmr.lambda', { min: 0, max: 1 }) ?? 0.5 };
}

function parseRewrite(o: Obj): RetrieveParams['rewrite'] {
  const v = read(o, 'rewrite');
  return v === false ? false : optOption<TransformMethod>(o, 'rewrite');
}

function parseRecency(o: Obj, caps: Capabilities): RetrieveParams['recency'] {
  const r = optObject(o, 'recency');
  if (!r) return undefined;
  const field = reqString(r, 'field', 'recency.field', { nonEmpty: true });
  const halfLifeDays = optNumber(r, 'halfLifeDays', 'recency.halfLifeDays', { above: 0 });
  if (halfLifeDays === undefined) throw invalidParams('recency.halfLifeDays', 'is required');
  const types = filterFieldTypes(caps.filter);
  if (!Object.hasOwn(types, field) || types[field] !== 'date') {
    throw invalidParams('recency.field', `${echo(field)} is not an advertised date field (§4.6, §8)`);
  }
  return { field, halfLifeDays };
}
