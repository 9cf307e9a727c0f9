/** Per-request deadlines in ms (§13.1): on expiry the request is answered with -32014. */
export interface Deadlines {
  default: number;
  /** Writes may embed thousands of chunks; they get longer. */
  'index/add': number;
  [method: string]: number;
}

export const DEFAULT_DEADLINES: Readonly<Deadlines> = Object.freeze({
  default: 30_000,
  'index/add': 600_000,
  'index/delete': 60_000,
  /** An import re-embeds when its vectors are from another model: as long as index/add. */
  'x-inpage/import': 600_000,
  /** How long `shutdown` lets in-flight requests finish before cancelling them. */
  shutdown: 30_000,
});

export function deadlineFor(method: string, overrides?: Partial<Deadlines>): number {
  return overrides?.[method] ?? DEFAULT_DEADLINES[method] ?? overrides?.default ?? DEFAULT_DEADLINES.default;
}
