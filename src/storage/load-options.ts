import type { LoadOptions, Manifest, SegmentRecord } from '../engine/contracts.ts';

/** Whether `load(options)` must list the documents (see `LoadOptions.documents`). */
export function needsDocuments(manifest: Manifest, segments: readonly SegmentRecord[], options: LoadOptions | undefined): boolean {
  if (options?.documents !== 'unless-tabled') return true;
  // An older manifest has no count: only the documents themselves can tell.
  return manifest.chunkless === undefined || manifest.chunkless > 0 || segments.some((s) => s.docTable === undefined);
}
