import { RETRIEVE_MODES } from './enums.ts';
import { echo } from './limits.ts';
import { optionUnsupported } from './errors.ts';
import type { Capabilities, RetrieveParams, Unit } from './types.ts';

/**
 * §7.7 option gating for `retrieve`, and §3.3/§7.7 funnel clamping. Option names in
 * `data.option` are the params paths (`mode`, `fusion.method`, `rerank.method`, `unit`, …).
 */

/** §6.1: `units` absent means chunk/passage only. */
export const DEFAULT_UNITS: readonly Unit[] = Object.freeze(['chunk', 'passage']);
/** §7.7: `k` when the client sends none. */
export const DEFAULT_K = 10;
/** §7.7: recall width when the client sends none is `max(k, DEFAULT_CANDIDATE_K)`. */
export const DEFAULT_CANDIDATE_K = 100;

/** How `gateRetrieve` treats an unsupported option, and where it reports degradations. */
export interface GateOptions {
  strict: boolean;
  notes: string[];
  /** The request carried a `filter` although `caps.filter` is absent. */
  filterRequested?: boolean;
}

/**
 * Checks every option of already-structurally-valid params against `caps`, mutating `p`.
 * Unsupported ⇒ -32005 with `data.option`, for any string outside the advertised set (RCP-defined
 * or not: validation let every string through, optOption); under `strict:false` the option is dropped or replaced
 * by a supported value and a note such as `mode 'dense' unsupported; used 'sparse'` is pushed.
 * Always errors regardless of `strict`: `indexVersion` without `retrieve.snapshots` (§7.7.1: serve
 * the pinned snapshot or fail, never a different one). `sessionId` and `seed` never error (§7.7.1,
 * §7.7.3). An operator outside `filter.operators` already failed in `validateFilter` (§8 MUST).
 */
export function gateRetrieve(p: RetrieveParams, caps: Capabilities, opts: GateOptions): void {
  const r = caps.retrieve ?? {};
  const refuse = (option: string, what: string, fallback: () => string): void => {
    if (opts.strict) throw optionUnsupported(option, `${what} (not advertised)`);
    opts.notes.push(`${what} unsupported; ${fallback()}`);
  };

  const modes = r.modes ?? RETRIEVE_MODES;
  if (p.mode !== undefined && !modes.includes(p.mode)) {
    const used = r.defaultMode && modes.includes(r.defaultMode) ? r.defaultMode : modes[0];
    refuse('mode', `mode ${echo(p.mode)}`, () => ((p.mode = used) ? `used '${used}'` : 'ignored'));
  }
  const modalities = r.modalities ?? ['text'];
  if (p.modality !== undefined && !modalities.includes(p.modality)) {
    refuse('modality', `modality ${echo(p.modality)}`, () => ((p.modality = undefined), 'ignored'));
  }
  if (p.fusion) {
    const fusion = p.fusion, list = r.fusion ?? [];
    if (!list.includes(fusion.method)) {
      const used = list.includes('rrf') ? 'rrf' : list[0];
      refuse('fusion.method', `fusion ${echo(fusion.method)}`, () =>
        used ? ((fusion.method = used), `used '${used}'`) : ((p.fusion = undefined), 'ignored'));
    }
  }
  gateRerank(p, caps, refuse);
  if (p.mmr && r.mmr !== true) refuse('mmr', 'mmr', () => ((p.mmr = undefined), 'ignored'));
  const units = r.units ?? DEFAULT_UNITS;
  if (p.unit !== undefined && !units.includes(p.unit)) {
    refuse('unit', `unit ${echo(p.unit)}`, () => ((p.unit = units[0]), `used '${units[0]}'`));
  }
  if (p.level !== undefined && p.level > 0 && (r.levels === undefined || p.level >= r.levels)) {
    refuse('level', `level ${p.level}`, () => ((p.level = undefined), 'used level 0'));
  }
  if (p.tokenBudget !== undefined && r.tokenBudget !== true) {
    refuse('tokenBudget', 'tokenBudget', () => ((p.tokenBudget = undefined), 'ignored'));
  }
  if (p.includeVectors === true && !caps.embed) {
    refuse('includeVectors', 'includeVectors', () => ((p.includeVectors = false), 'vectors omitted'));
  }
  if (p.encoding !== undefined && p.encoding !== 'json' && !(caps.embed?.encodings ?? []).includes(p.encoding)) {
    refuse('encoding', `encoding ${echo(p.encoding)}`, () => ((p.encoding = 'json'), "used 'json'"));
  }
  if (p.cursor !== undefined && !caps.pagination) refuse('cursor', 'cursor', () => ((p.cursor = undefined), 'ignored'));
  if (p.indexVersion !== undefined && r.snapshots !== true) {
    throw optionUnsupported('indexVersion', 'snapshots are not advertised; a pinned indexVersion cannot be served (§7.7.1)');
  }
  if (typeof p.rewrite === 'string' && !(caps.transform?.methods ?? []).includes(p.rewrite)) {
    refuse('rewrite', `rewrite ${echo(p.rewrite)}`, () => ((p.rewrite = undefined), 'query used as is'));
  }
  if (opts.filterRequested && !caps.filter) refuse('filter', 'filter', () => ((p.filter = undefined), 'ignored'));
}

type Refuse = (option: string, what: string, fallback: () => string) => void;

function gateRerank(p: RetrieveParams, caps: Capabilities, refuse: Refuse): void {
  const rr = p.rerank;
  if (!rr) return;
  if (caps.retrieve?.rerankBuiltin !== true) {
    refuse('rerank', 'rerank', () => ((p.rerank = undefined), 'ignored'));
    return;
  }
  const methods = caps.rerank?.methods ?? [];
  // No method: the server's preferred one, resolved where the reranker is chosen (planRetrieve).
  if (rr.method !== undefined && !methods.includes(rr.method)) {
    const used = methods[0];
    refuse('rerank.method', `rerank method ${echo(rr.method)}`, () =>
      used ? ((rr.method = used), `used '${used}'`) : ((p.rerank = undefined), 'ignored'));
    if (!p.rerank) return;
  }
  const models = caps.rerank?.models;
  if (rr.model !== undefined && models && !models.includes(rr.model)) {
    refuse('rerank.model', `rerank model ${echo(rr.model)}`, () => ((rr.model = undefined), 'used the default model'));
  }
}

/** Effective result-size knobs after defaults and clamping. */
export interface Funnel {
  k: number;
  candidateK: number;
  /** Present only when a rerank stage is requested. */
  topN?: number;
  /** What was clamped, for `usage.notes`. */
  notes: string[];
}

const limit = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : Infinity);

/**
 * §7.7 effective counts. Defaults: `k` = 10 (at most the given candidateK/topN), `candidateK` =
 * max(k, 100, topN), `topN` = candidateK. Then `k` and `candidateK` are clamped to
 * `retrieve.maxK` and `topN` to `min(candidateK, rerank.maxCandidates)` — clamping is never an
 * error (§12). Guarantees k ≤ candidateK and topN ≤ candidateK; topN < k only when
 * `maxCandidates < k` (the engine then reranks the first topN and keeps the rest in recall order).
 */
export function clampFunnel(params: RetrieveParams, caps: Capabilities): Funnel {
  const notes: string[] = [];
  const maxK = limit(caps.retrieve?.maxK);
  const maxCandidates = limit(caps.rerank?.maxCandidates);
  const rr = params.rerank || undefined;
  let k = params.k ?? Math.min(DEFAULT_K, params.candidateK ?? Infinity, rr?.topN ?? Infinity);
  if (k > maxK) {
    notes.push(`k ${k} clamped to maxK ${maxK}`);
    k = maxK;
  }
  let candidateK = params.candidateK ?? Math.max(k, DEFAULT_CANDIDATE_K, rr?.topN ?? 0);
  if (candidateK > maxK) {
    if (params.candidateK !== undefined) notes.push(`candidateK ${candidateK} clamped to maxK ${maxK}`);
    candidateK = maxK;
  }
  if (!rr) return { k, candidateK, notes };
  let topN = Math.min(rr.topN ?? candidateK, candidateK);
  if (topN > maxCandidates) {
    notes.push(`rerank.topN ${topN} clamped to maxCandidates ${maxCandidates}`);
    topN = maxCandidates;
  }
  return { k, candidateK, topN, notes };
}
