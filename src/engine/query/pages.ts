/**
 * Page numbers for hits of paged documents (PDF imports): when a document's meta carries
 * `pageStarts` (the text offset where each page begins, ascending), a hit's `citation.page` is the
 * 1-based page its cited range starts on (§7.7 Citation.page). The offsets stay out of the hit's meta.
 */
import type { Hit } from '../../protocol/types.ts';

/** The 1-based page holding text offset `at`, or undefined when `starts` is not a page table. */
export function pageAt(starts: unknown, at: number): number | undefined {
  if (!Array.isArray(starts) || starts.length === 0 || !starts.every((s) => typeof s === 'number')) return undefined;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Sets `citation.page` on hits of paged documents and drops the page table from their meta. */
export function addPages(hits: Hit[]): void {
  for (const h of hits) {
    const starts = h.meta?.pageStarts;
    if (starts === undefined) continue;
    const page = h.citation?.start !== undefined ? pageAt(starts, h.citation.start) : undefined;
    if (page !== undefined && h.citation) h.citation.page = page;
    delete h.meta!.pageStarts;
  }
}
