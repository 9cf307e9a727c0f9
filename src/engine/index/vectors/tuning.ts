/**
 * How dense search runs, chosen by measurement (docs/bench.md, "Dense search at scale"). One
 * process-wide object, so the bench and the evaluation can switch paths (e.g. force the exact
 * scan to measure recall); the engine never changes it.
 */
import type { KernelChoice } from './block.ts';

export interface DenseTuning {
  /** Scan kernel; a block without a WebAssembly memory always runs the JS one. */
  kernel: KernelChoice;
  /**
   * Below this many stored vectors (live or not) every vector is scored; from it on, a Hamming
   * scan over the sign bits picks a shortlist that is then scored exactly.
   */
  exactBelow: number;
  /** Shortlist = max(minShortlist, oversample × k, perMillion × stored / 1M) chunks, before tombstones and filters. */
  oversample: number;
  minShortlist: number;
  /** Larger indexes crowd more near-ties into the Hamming ranking: the shortlist grows with them. */
  perMillion: number;
  /** Rescore the head of a dense-only list with the chunks' fine codes (vectors/fine.ts); off = int8 cosines. */
  refine: boolean;
}

export const denseTuning: DenseTuning = {
  kernel: 'wasm',
  exactBelow: 20_000,
  oversample: 4,
  minShortlist: 400,
  perMillion: 1000,
  refine: true,
};
