/**
 * The machine-readable form of scripts/measure-site-search.ts (`--json FILE`, issue 49): one row
 * per site, system, path and way in. `bytesBeforeFirst.served` is what the cold first answer
 * fetched as served (no HTTP compression), `gzip` the same from a host that gzips its responses,
 * `js` the JavaScript and WebAssembly part of `served`. Pagefind's rows are `via: "library"`
 * (its pagefind.js) and `path: "sparse"` (word matching). `ndcg10` and `resultsPerQuery` are null on
 * element rows: the element shows passages, and its engine and bundle are the library row's.
 */
import { renameSync, writeFileSync } from 'node:fs';

export interface SiteSearchRow {
  site: string;
  system: 'rcp-in-page' | 'pagefind';
  path: 'sparse' | 'hybrid';
  via: 'element' | 'library';
  firstResultMs: { best: number; median: number };
  bytesBeforeFirst: { served: number; gzip: number; js: number };
  ndcg10: number | null;
  resultsPerQuery: number | null;
  buildS: number;
  bundleBytes: number;
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

/** The rows as written: times to 0.1 ms and build seconds to 0.01 s, nDCG to 4 places. */
export function siteSearchJson(rows: readonly SiteSearchRow[]): { rows: SiteSearchRow[] } {
  return {
    rows: rows.map((r) => ({
      ...r,
      firstResultMs: { best: round(r.firstResultMs.best, 1), median: round(r.firstResultMs.median, 1) },
      ndcg10: r.ndcg10 === null ? null : round(r.ndcg10, 4),
      resultsPerQuery: r.resultsPerQuery === null ? null : round(r.resultsPerQuery, 2),
      buildS: round(r.buildS, 2),
    })),
  };
}

/** Writes `{ "rows": [...] }` to `file` whole (through a temporary file and a rename). */
export function writeSiteSearchJson(file: string, rows: readonly SiteSearchRow[]): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(siteSearchJson(rows), null, 2)}\n`);
  renameSync(tmp, file);
}
