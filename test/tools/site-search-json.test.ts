import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteSearchJson, writeSiteSearchJson, type SiteSearchRow } from '../../scripts/lib/site-search-json.ts';

describe('measure-site-search --json', () => {
  it('writes the rows in the shape issue 49 gives, rounded, null where a figure is not measured', () => {
    const row: SiteSearchRow = {
      site: 'npl',
      system: 'rcp-in-page',
      path: 'sparse',
      via: 'element',
      firstResultMs: { best: 401.2345, median: 455.96 },
      bytesBeforeFirst: { served: 235550, gzip: 84214, js: 231562 },
      ndcg10: null,
      resultsPerQuery: null,
      buildS: 7.8612,
      bundleBytes: 7609167,
    };
    const dir = mkdtempSync(join(tmpdir(), 'rcp-site-json-'));
    try {
      const file = join(dir, 'out.json');
      writeSiteSearchJson(file, [row, { ...row, system: 'pagefind', via: 'library', ndcg10: 0.041234567, resultsPerQuery: 3.333333 }]);
      const out = JSON.parse(readFileSync(file, 'utf8')) as { rows: Record<string, unknown>[] };
      expect(Object.keys(out)).toEqual(['rows']);
      expect(Object.keys(out.rows[0])).toEqual(['site', 'system', 'path', 'via', 'firstResultMs', 'bytesBeforeFirst', 'ndcg10', 'resultsPerQuery', 'buildS', 'bundleBytes']);
      expect(out.rows[0]).toMatchObject({ firstResultMs: { best: 401.2, median: 456 }, ndcg10: null, buildS: 7.86 });
      expect(out.rows[1]).toMatchObject({ system: 'pagefind', via: 'library', ndcg10: 0.0412, resultsPerQuery: 3.33 });
      expect(siteSearchJson([])).toEqual({ rows: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
