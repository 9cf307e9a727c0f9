/**
 * Params validation (§4.6, §7, §8): the reusable readers, Content/query checks, and one validator
 * per method. Re-exports only; each concern lives in its own file.
 */
export * from './validate-kit.ts';
export * from './content.ts';
export * from './validate-methods.ts';
export * from './validate-retrieve.ts';
export * from './validate-transform.ts';
export { clampFunnel, gateRetrieve, DEFAULT_CANDIDATE_K, DEFAULT_K, DEFAULT_UNITS, type Funnel, type GateOptions } from './retrieve-gating.ts';
