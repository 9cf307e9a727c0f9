/**
 * Typo tolerance of a static bundle (src/bundle/typo-format.ts, write-typos.ts, typo-reader.ts,
 * src/engine/query/typos.ts): the blocking keys find every word one edit away, the shards answer
 * what a scan of the whole word list would, the choice rules, and a built bundle answering
 * misspelt queries in every mode, saying what it searched, failing a missing shard by name.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleFiles } from '../../src/bundle/bundle-files.ts';
import { BundleStore, type FetchLike } from '../../src/bundle/bundle-store.ts';
import { encodeValue } from '../../src/bundle/codec.ts';
import { MANIFEST_FILE, shardFile, type BundleFile, type BundleManifest } from '../../src/bundle/format.ts';
import { gzip } from '../../src/bundle/gzip.ts';
import { sha256Hex } from '../../src/bundle/hash.ts';
import { KEY_CHARS, typoKeys, type TypoCoreValue } from '../../src/bundle/typo-format.ts';
import { TypoReader } from '../../src/bundle/typo-reader.ts';
import { corpusWords, writeTypos } from '../../src/bundle/write-typos.ts';
import { createAnalyzer } from '../../src/engine/analysis/analyzer.ts';
import { Engine } from '../../src/engine/engine.ts';
import { editDistance } from '../../src/engine/query/transform.ts';
import { chooseFix, RARE_RATIO } from '../../src/engine/query/typos.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import type { RetrieveParams } from '../../src/protocol/types.ts';
import { matchError } from '../../src/server/errors.ts';
import { rng } from '../../src/util/prng.ts';
import { buildIndex } from '../../cli/build-index.ts';
import { HashEmbedder, ids, search } from '../support/engine.ts';
import { fileFetch, writeSite } from './site-fixture.ts';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every one-edit variant kind of `w` at position `i` (where it applies), with letter `c`. */
function edits(w: string, i: number, c: string): string[] {
  const out = [w.slice(0, i) + c + w.slice(i)]; // insertion
  if (i < w.length) out.push(w.slice(0, i) + w.slice(i + 1), w.slice(0, i) + c + w.slice(i + 1)); // deletion, substitution
  if (i + 1 < w.length) out.push(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2)); // transposition
  return out.filter((x) => x !== w);
}

function randomWord(rand: () => number, min = 3, max = 10): string {
  const n = min + Math.floor(rand() * (max - min + 1));
  return Array.from({ length: n }, () => LETTERS[Math.floor(rand() * 6)]).join(''); // six letters: many near neighbours
}

describe('blocking keys', () => {
  it('two words one edit apart share a key, whatever the edit and wherever it is', () => {
    const rand = rng(7);
    for (let n = 0; n < 400; n++) {
      const w = randomWord(rand);
      const keys = new Set(typoKeys(w));
      expect(keys.size).toBeLessThanOrEqual(KEY_CHARS + 1);
      for (let i = 0; i <= w.length; i++) {
        for (const v of edits(w, i, LETTERS[Math.floor(rand() * 6)])) {
          if (v.length === 0) continue;
          expect(typoKeys(v).some((k) => keys.has(k)), `${w} / ${v}`).toBe(true);
        }
      }
    }
  });

  it('a word far from another shares no key with it unless a prefix does', () => {
    expect(typoKeys('harpoon').some((k) => typoKeys('whale').includes(k))).toBe(false);
    expect(typoKeys('cat').sort()).toEqual(['at', 'cat', 'ct', 'ca'].sort());
  });
});

/** The shard files of `words` written as the bundle writer writes them, served by a fetch over a map. */
async function typoFiles(words: { word: string; count: number }[]): Promise<{ reader: TypoReader; served: Map<string, Uint8Array>; core: TypoCoreValue }> {
  const served = new Map<string, Uint8Array>();
  const add = async (name: string, value: unknown, digits: number): Promise<BundleFile> => {
    const bytes = await gzip(encodeValue(value));
    const sha256 = await sha256Hex(bytes);
    const path = `${name}-${sha256.slice(0, digits)}.bin`;
    served.set(`https://site.example/search/${path}`, bytes);
    return { path, sha256, bytes: bytes.byteLength, gzip: true };
  };
  const typos = await writeTypos(add, words);
  const fetchFn: FetchLike = async (url) => (served.has(url) ? new Response(served.get(url)! as Uint8Array<ArrayBuffer>) : new Response('no', { status: 404 }));
  const files = new BundleFiles('https://site.example/search/', fetchFn);
  return { reader: new TypoReader(files, typos!), served, core: await files.get<TypoCoreValue>(typos!.core) };
}

describe('typo shards', () => {
  it('answer what a scan of every word would: each corpus word within one edit, with its count', async () => {
    const rand = rng(11);
    const list = [...new Set(Array.from({ length: 1500 }, () => randomWord(rand)))].map((word, i) => ({ word, count: 1 + (i % 17) }));
    const { reader, core } = await typoFiles(list);
    expect(core.shards.bytes.length).toBeGreaterThan(1);
    const queries = [...list.slice(0, 60).map((w) => edits(w.word, Math.floor(rand() * w.word.length), 'a')[0]), ...Array.from({ length: 40 }, () => randomWord(rand))];
    const near = await reader.near(queries);
    for (const q of queries) {
      const expected = list.filter((w) => editDistance(q, w.word, 1) <= 1).sort((a, b) => (a.word < b.word ? -1 : 1));
      const got = [...(near.get(q) ?? [])].sort((a, b) => (a.word < b.word ? -1 : 1));
      expect(got, q).toEqual(expected);
    }
  });

  it('hold the corpus words typo tolerance proposes: letters only, no stopwords, with their counts', () => {
    const words = corpusWords(['The whale, the whales and the WHALE: a 1851 harpoon at x.y.', 'Ahab’s whale'], createAnalyzer());
    // 'ahab’s' has an apostrophe, '1851' no letters, 'a', 'x', 'y' are too short, 'the' and 'and' are stopwords.
    expect(words).toEqual([
      { word: 'whale', count: 3 },
      { word: 'harpoon', count: 1 },
      { word: 'whales', count: 1 },
    ]);
  });
});

describe('choosing a correction', () => {
  const analyzer = createAnalyzer();
  it('corrects an unknown word to the most frequent word one edit away, never to a stopword', () => {
    const near = [{ word: 'whale', count: 40 }, { word: 'whole', count: 90 }, { word: 'while', count: 500 }, { word: 'whales', count: 1000 }];
    // 'while' is a stopword.
    expect(chooseFix('whsle', 0, near, analyzer)).toEqual({ to: 'whales', kept: false });
    expect(chooseFix('whsle', 0, [{ word: 'while', count: 500 }], analyzer)).toBeUndefined();
    // Ties go to the alphabetically first.
    expect(chooseFix('bat', 0, [{ word: 'cat', count: 3 }, { word: 'bag', count: 3 }], analyzer)).toEqual({ to: 'bag', kept: false });
  });

  it('leaves a known word alone, and adds a far more frequent neighbour to a rare one', () => {
    const near = [{ word: 'harpon', count: 1 }, { word: 'harpoon', count: RARE_RATIO }];
    expect(chooseFix('harpon', 1, near, analyzer)).toEqual({ to: 'harpoon', kept: true });
    expect(chooseFix('harpon', 1, [{ word: 'harpon', count: 1 }, { word: 'harpoon', count: RARE_RATIO - 1 }], analyzer)).toBeUndefined();
    expect(chooseFix('harpon', 3, near, analyzer)).toBeUndefined(); // in more than RARE_DF chunks: a word, not a typo
  });
});

describe('a built bundle with typo shards', () => {
  let site: string;
  let out: string;
  let url: string;
  let engine: Engine;
  let store: BundleStore;
  const served: string[] = [];
  const recording: FetchLike = (u, init) => {
    served.push(u);
    return fileFetch(u, init);
  };

  beforeAll(async () => {
    site = writeSite(8);
    out = mkdtempSync(join(tmpdir(), 'rcp-typos-'));
    await buildIndex({ input: site, out, baseUrl: '', model: { name: 'hash', load: async () => new HashEmbedder() }, log: () => undefined });
    url = pathToFileURL(out).href;
    store = await BundleStore.open(url, { fetch: recording, cache: false });
    engine = new Engine({ store, embedder: new HashEmbedder(), readOnly: true, fields: store.manifest.fields });
    await engine.open();
  }, 120_000);

  afterAll(() => {
    engine.close();
    rmSync(site, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  const ask = (query: string, more: Partial<RetrieveParams> = {}) => search(engine, { query, k: 5, ...more });

  it('finds a misspelt word’s pages in every mode, as the word itself would, and says what it searched', async () => {
    for (const mode of ['sparse', 'dense', 'hybrid'] as const) {
      for (const [typo, word] of [['harpoom', 'harpoon'], ['whaels', 'whales'], ['Ishmale sea', 'Ishmael sea'], ['voyaeg', 'voyage']]) {
        const clean = await ask(word, { mode });
        const fixed = await ask(typo, { mode });
        expect(ids(fixed), `${mode} ${typo}`).toEqual(ids(clean));
        expect(fixed.hits.length).toBeGreaterThan(0);
        expect(fixed.rewrittenQuery).toBe(word);
        expect(fixed.usage?.notes).toContain(`typo tolerance: searched '${typo.split(' ')[0]}' as '${word.split(' ')[0]}'`);
        expect(clean.rewrittenQuery).toBeUndefined();
        // Without typo tolerance the lexical side finds nothing for a misspelt word alone.
        if (mode === 'sparse' && !typo.includes(' ')) expect((await ask(typo, { mode, rewrite: false })).hits).toEqual([]);
      }
    }
  });

  it('marks the corrected word in the hits it finds', async () => {
    const r = await ask('harpoom', { mode: 'sparse', includeText: true, _meta: { 'x-inpage-matches': true } });
    const m = (r.hits[0] as unknown as Record<string, { terms: string[] }>)['x-inpage-matches'];
    expect(m.terms).toEqual(['harpoon']);
  });

  it('reads no typo file for a query of known words, and a few shards for a misspelt one', async () => {
    const fresh = await BundleStore.open(url, { fetch: recording, cache: false });
    const e = new Engine({ store: fresh, readOnly: true, fields: fresh.manifest.fields });
    await e.open();
    served.length = 0;
    await search(e, { query: 'white whale harpoon', k: 5, mode: 'sparse' });
    expect(served.filter((u) => /\/typos[-/]/.test(u))).toEqual([]);
    await search(e, { query: 'white whael', k: 5, mode: 'sparse' });
    const typoReads = served.filter((u) => /\/typos[-/]/.test(u));
    expect(typoReads.filter((u) => /\/typos-/.test(u))).toHaveLength(1); // the listing
    expect(typoReads.length).toBeGreaterThan(1);
    expect(typoReads.length).toBeLessThanOrEqual(1 + KEY_CHARS + 1); // the listing and at most four shards for one word
    e.close();
  });

  it('answers an asked rewrite and query/transform from the typo shards, not by reading the whole bundle', async () => {
    const fresh = await BundleStore.open(url, { fetch: recording, cache: false });
    const e = new Engine({ store: fresh, readOnly: true, fields: fresh.manifest.fields });
    await e.open();
    served.length = 0;
    const r = await search(e, { query: 'harpoom', k: 5, mode: 'sparse', rewrite: 'rewrite' });
    expect(r.rewrittenQuery).toBe('harpoon');
    expect(r.hits.length).toBeGreaterThan(0);
    expect((await search(e, { query: 'harpoon', k: 5, mode: 'sparse', rewrite: 'rewrite' })).rewrittenQuery).toBe('harpoon');
    expect(await e.transform('Whaels and harpoom', 'rewrite')).toEqual({
      queries: ['Whales and harpoon'],
      corrections: [{ from: 'Whaels', to: 'Whales' }, { from: 'harpoom', to: 'harpoon' }],
    });
    // Neither every document's id and meta nor every term shard was read.
    const m = fresh.manifest;
    expect(served.some((u) => u.endsWith(m.ids.path) || u.endsWith(m.metas.path))).toBe(false);
    expect(served.filter((u) => u.includes('/terms/')).length).toBeLessThan(m.terms.bytes.length);
    e.close();
  });

  it('fails a request whose typo shard is missing with -32010 naming it, and the next request reads it again', async () => {
    const fresh = await BundleStore.open(url, { fetch: fileFetch, cache: false });
    const e = new Engine({ store: fresh, readOnly: true, fields: fresh.manifest.fields });
    await e.open();
    const m = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as BundleManifest;
    const files = new BundleFiles(url.endsWith('/') ? url : `${url}/`, fileFetch);
    const core = await files.get<TypoCoreValue>(m.typos!.core);
    const paths = core.shards.bytes.map((_, i) => shardFile('typos', core.shards, i).path);
    for (const p of paths) renameSync(join(out, p), join(out, `${p}.away`));
    const failed = search(e, { query: 'harpoom', k: 5, mode: 'sparse' });
    const err = await failed.catch((x: unknown) => x);
    expect(String((err as Error).message)).toMatch(/\/typos\/\d+-[0-9a-f]{8}\.bin: HTTP 404/);
    expect(matchError(err)?.code).toBe(ErrorCode.BackendUnavailable);
    for (const p of paths) renameSync(join(out, `${p}.away`), join(out, p));
    const again = await search(e, { query: 'harpoom', k: 5, mode: 'sparse' });
    expect(again.rewrittenQuery).toBe('harpoon');
    expect(again.hits.length).toBeGreaterThan(0);
    e.close();
  });

  it('leaves misspellings alone when asked (rewrite: false), and a bundle without typo shards answers as before', async () => {
    const off = await ask('harpoom', { mode: 'sparse', rewrite: false });
    expect(off.rewrittenQuery).toBeUndefined();
    expect(off.hits).toEqual([]);
    const manifestPath = join(out, MANIFEST_FILE);
    const text = readFileSync(manifestPath, 'utf8');
    const { typos: _dropped, ...older } = JSON.parse(text) as BundleManifest;
    writeFileSync(manifestPath, JSON.stringify(older));
    try {
      const oldStore = await BundleStore.open(url, { fetch: fileFetch, cache: false });
      const e = new Engine({ store: oldStore, readOnly: true, fields: oldStore.manifest.fields });
      await e.open();
      const r = await search(e, { query: 'harpoom', k: 5, mode: 'sparse' });
      expect(r.hits).toEqual([]);
      expect(r.rewrittenQuery).toBeUndefined();
      expect((await search(e, { query: 'harpoon', k: 5, mode: 'sparse' })).hits.length).toBeGreaterThan(0);
      e.close();
    } finally {
      writeFileSync(manifestPath, text);
    }
  });
});
