/**
 * A bundle built ahead answers exactly as the same documents added in the page: the site is built
 * with `rcp-in-page index` (cli/build-index.ts) and opened through the read-only BundleStore, and
 * separately its pages are added through `index/add` in the playground's batches; every retrieve
 * (modes, units, filters, text) must give the same hits with the same scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches } from '../../src/app/ingest.ts';
import { BundleStore } from '../../src/bundle/bundle-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { IndexDocument, RetrieveParams } from '../../src/protocol/types.ts';
import { buildIndex, sitePaths } from '../../cli/build-index.ts';
import { loadDom, loadPdfjs } from '../../cli/node-deps.ts';
import { readPage } from '../../cli/read-page.ts';
import { HashEmbedder, makeEngine, search } from '../support/engine.ts';
import { fileFetch, writeSite } from './site-fixture.ts';
import { MANIFEST_FILE, termFile, termShardOf, textFile } from '../../src/bundle/format.ts';
import type { FetchLike } from '../../src/bundle/bundle-store.ts';
import { lazyStore } from '../../src/storage/lazy-store.ts';
import { readAhead } from '../../src/storage/read-ahead.ts';

let site: string;
let out: string;
let bundled: Engine;
let inPage: Engine;
let docs: IndexDocument[];

beforeAll(async () => {
  site = writeSite();
  out = mkdtempSync(join(tmpdir(), 'rcp-bundle-'));
  const report = await buildIndex({ input: site, out, baseUrl: 'https://docs.example', model: { name: 'hash', load: async () => new HashEmbedder() }, log: () => undefined });
  expect(report.documents).toBe(25);
  const store = await BundleStore.open(pathToFileURL(out).href, { fetch: fileFetch });
  bundled = new Engine({ store, embedder: new HashEmbedder(), readOnly: true, fields: store.manifest.fields });
  await bundled.open();

  const ctx = { dom: await loadDom(), pdfjs: loadPdfjs, baseUrl: 'https://docs.example' };
  const outcomes = await Promise.all(sitePaths(site, []).map((p) => readPage(join(site, p), p, ctx)));
  docs = outcomes.flatMap((o) => (o.status === 'parsed' ? [o.doc] : []));
  ({ engine: inPage } = await makeEngine({ embedder: new HashEmbedder(), fields: store.manifest.fields }));
  for (const batch of batches(docs)) await inPage.add(batch, { chunk: true, contextual: true });
}, 120_000); // two builds of the site: seconds alone, longer on a loaded machine

afterAll(() => {
  rmSync(site, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

describe('a bundle built ahead', () => {
  it('holds every page with text, named by path, with its URL and metadata', async () => {
    expect(docs.map((d) => d.id)).toContain('html/index.html');
    const page = await bundled.document('html/index.html');
    expect(page?.meta).toMatchObject({ url: 'https://docs.example/html/', author: 'Herman Melville', lang: 'en', section: 'novel', format: 'html' });
    expect(page?.text).not.toMatch(/never indexed|Site footer|Chapters · About/);
    expect(page?.text).toMatch(/^## Part two$/m);
    const md = await bundled.document('md/chapter-2.md');
    expect(md?.meta).toMatchObject({ url: 'https://docs.example/md/chapter-2.html', chapter: 2, tags: ['novel', 'land'], format: 'markdown' });
    expect(await bundled.document('html/broken.html')).toBeUndefined();
  });

  const queries = ['white whale', 'Ishmael sea voyage', 'harpoon line', 'the Pequod captain Ahab', 'Further', 'nonexistentword'];
  const variants: [string, Partial<RetrieveParams>][] = [
    ['sparse', { mode: 'sparse' }],
    ['dense', { mode: 'dense' }],
    ['hybrid', { mode: 'hybrid' }],
    ['hybrid rrf by document', { mode: 'hybrid', fusion: { method: 'rrf' }, unit: 'document' }],
    ['sparse filtered on tags', { mode: 'sparse', filter: { field: 'tags', op: 'eq', value: 'sea' } }],
    ['hybrid filtered on format', { mode: 'hybrid', filter: { field: 'format', op: 'eq', value: 'html' } }],
  ];
  for (const [label, extra] of variants) {
    it(`answers as the in-page index, hit for hit: ${label}`, async () => {
      let nonEmpty = 0;
      for (const query of queries) {
        const params = { query, k: 10, includeText: true, ...extra };
        const [a, b] = await Promise.all([search(bundled, params), search(inPage, params)]);
        const view = (r: typeof a) => r.hits.map((h) => ({ id: h.id, score: h.score, scores: h.scores, text: h.text, citation: h.citation, meta: h.meta }));
        expect(view(a)).toEqual(view(b));
        if (a.hits.length > 0) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThanOrEqual(4);
    });
  }

  it('reads before a first sparse answer only its terms\' shards and its hits\' texts', async () => {
    const read: string[] = [];
    const recording: FetchLike = (url, init) => {
      read.push(url.slice(pathToFileURL(out).href.length + 1));
      return fileFetch(url, init);
    };
    const store = await BundleStore.open(pathToFileURL(out).href, { fetch: recording, cache: false });
    const m = store.manifest;
    expect(m.terms.bytes.length).toBeGreaterThan(3); // a site this small still has shards to leave unread
    const engine = new Engine({ store, embedder: new HashEmbedder(), readOnly: true, fields: m.fields });
    await engine.open();
    const query = 'harpoon line';
    const r = await search(engine, { query, k: 3, mode: 'sparse' });
    expect(r.hits.length).toBeGreaterThan(0);
    const terms = engine.analyzer.queryTerms(query);
    expect(terms.length).toBe(2);
    const shards = new Set(terms.map((t) => termFile(m, termShardOf(t, m.terms.bytes.length)).path));
    // The manifest, the core file, the query's term shards and the hits' text shards: nothing else.
    // (The vectors are read once the answer is out, in the background: not part of it.)
    const rest = read.filter((p) => p !== MANIFEST_FILE && p !== m.core.path && !shards.has(p) && !p.startsWith('vectors/'));
    expect(read.slice(0, 2)).toEqual([MANIFEST_FILE, m.core.path]);
    expect([...shards].every((p) => read.includes(p))).toBe(true);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.length).toBeLessThanOrEqual(r.hits.length);
    const textPaths = m.texts.bytes.map((_, i) => textFile(m, i).path);
    expect(rest.every((p) => textPaths.includes(p))).toBe(true);
    const sum = (xs: number[]): number => xs.reduce((n, x) => n + x, 0);
    expect(store.bytesRead).toBeLessThan(sum(m.terms.bytes) + sum(m.texts.bytes));

    // A filter reads every document's meta; dense search its segments' vectors (if the background read has not yet).
    expect(read).not.toContain(m.metas.path);
    await search(engine, { query, k: 3, mode: 'sparse', filter: { field: 'format', op: 'eq', value: 'html' } });
    expect(read).toContain(m.metas.path);
    await search(engine, { query: 'whale', k: 3, mode: 'dense' });
    expect(read.some((p) => p.startsWith('vectors/'))).toBe(true);
  });

  it('answers the same through the wrappers the worker puts around its store', async () => {
    const store = await BundleStore.open(pathToFileURL(out).href, { fetch: fileFetch, cache: false });
    const wrapped = new Engine({ store: readAhead(lazyStore(Promise.resolve(store), store.partial)), embedder: new HashEmbedder(), readOnly: true, fields: store.manifest.fields });
    await wrapped.open();
    for (const query of ['white whale', 'harpoon line']) {
      const params = { query, k: 5, mode: 'sparse' as const, includeText: true };
      const [a, b] = await Promise.all([search(wrapped, params), search(bundled, params)]);
      expect(a.hits.length).toBeGreaterThan(0);
      expect(a.hits).toEqual(b.hits);
    }
  });

  it('refuses writes: the store is read-only', async () => {
    await expect(bundled.add([{ id: 'x', text: 'new' }])).rejects.toThrow(/read-only/);
  });
});
