/**
 * `rcp-in-page index` as a build step: bad files are named, rebuilds embed only what changed, an
 * unchanged rebuild keeps the bundle, and a damaged or foreign bundle is refused by name.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BundleStore } from '../../src/bundle/bundle-store.ts';
import { decodeValue, encodeValue } from '../../src/bundle/codec.ts';
import { BUNDLE_VERSION, MANIFEST_FILE, textFile, type BundleManifest } from '../../src/bundle/format.ts';
import { Engine } from '../../src/engine/engine.ts';
import { matchError } from '../../src/server/errors.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { buildIndex, type BuildOptions } from '../../cli/build-index.ts';
import { HashEmbedder, search } from '../support/engine.ts';
import { fileFetch, writeSite } from './site-fixture.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(chapters = 6): { site: string; out: string; options: (log?: string[]) => BuildOptions; model: HashEmbedder } {
  const site = writeSite(chapters);
  const out = mkdtempSync(join(tmpdir(), 'rcp-bundle-'));
  made.push(site, out);
  const model = new HashEmbedder();
  return { site, out, model, options: (log = []) => ({ input: site, out, baseUrl: '', model: { name: 'hash', load: async () => model }, log: (l) => log.push(l) }) };
}

describe('the bundle codec', () => {
  it('round-trips plain values and typed arrays, and refuses a truncated file', () => {
    const value = { a: 'x', n: [1, 2.5, null], t: new Uint16Array([1, 65535]), f: new Float32Array([0.5, -1]), i: new Int8Array([-128, 127]) };
    const bytes = encodeValue(value);
    expect(decodeValue(bytes)).toEqual(value);
    expect(() => decodeValue(bytes.subarray(0, bytes.length - 3))).toThrow(/truncated/);
    expect(() => decodeValue(new TextEncoder().encode('<html>404</html>'))).toThrow(/not a bundle file/);
  });
});

describe('rcp-in-page index', () => {
  it('names every file it could not index and indexes the rest', async () => {
    const { options } = setup();
    const log: string[] = [];
    const report = await buildIndex(options(log));
    expect(report.documents).toBe(7); // 6 chapters + the note
    expect(report.problems).toEqual([
      { path: 'empty.md', status: 'empty', reason: 'the file is empty' },
      { path: 'html/broken.html', status: 'binary', reason: 'binary content (ELF executable), not HTML' },
    ]);
    expect(log.join('\n')).toContain('html/broken.html');
  });

  it('re-embeds only the passages of changed pages, and keeps an unchanged bundle as it is', async () => {
    const { site, out, options } = setup();
    const first = await buildIndex(options());
    expect(first.embedded).toBe(first.chunks);
    const manifest = readFileSync(join(out, MANIFEST_FILE), 'utf8');

    const again = await buildIndex(options());
    expect(again.upToDate).toBe(true);
    expect(readFileSync(join(out, MANIFEST_FILE), 'utf8')).toBe(manifest);

    appendFileSync(join(site, 'notes.txt'), 'A new sentence about the try-works.\n');
    const changed = await buildIndex(options());
    expect(changed.upToDate).toBe(false);
    expect(changed.embedded).toBe(1); // the note is one passage; every other vector came from the cache

    unlinkSync(join(site, 'notes.txt'));
    const removed = await buildIndex(options());
    expect(removed.documents).toBe(first.documents - 1);
    // Files of the previous build are gone: only what the manifest lists is left.
    const listed = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as BundleManifest;
    const texts = listed.texts.bytes.map((_, i) => textFile(listed, i).path);
    expect(readdirSync(join(out, 'texts')).map((f) => `texts/${f}`).sort()).toEqual(texts.sort());
  });

  it('a bundle from another format version, or a file that fails its hash, is refused by name', async () => {
    const { out, options } = setup(2);
    await buildIndex(options());
    const url = pathToFileURL(out).href;
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as BundleManifest;

    const store = await BundleStore.open(url, { fetch: fileFetch });
    const engine = new Engine({ store, embedder: new HashEmbedder(), readOnly: true });
    await engine.open();
    const text = textFile(manifest, 0).path;
    const whole = readFileSync(join(out, text));
    writeFileSync(join(out, text), whole.subarray(0, 100)); // a truncated upload
    const failed = search(engine, { query: 'whale', k: 3, includeText: true, mode: 'sparse' });
    await expect(failed).rejects.toThrow(new RegExp(`${text.replace(/[.]/g, '\\.')} does not match the bundle manifest`));
    const mapped = matchError(await failed.catch((e: unknown) => e));
    expect(mapped?.code).toBe(ErrorCode.BackendUnavailable);
    // A failed read is not remembered: once the file is whole again, the same engine answers.
    writeFileSync(join(out, text), whole);
    expect((await search(engine, { query: 'whale', k: 3, includeText: true, mode: 'sparse' })).hits.length).toBeGreaterThan(0);

    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify({ ...manifest, version: 99 }));
    await expect(BundleStore.open(url, { fetch: fileFetch })).rejects.toThrow(new RegExp(`bundle format version 99; this engine reads version ${BUNDLE_VERSION}`));
    rmSync(join(out, MANIFEST_FILE));
    await expect(BundleStore.open(url, { fetch: fileFetch })).rejects.toThrow(/rcp-bundle\.json: HTTP 404/);
  });

  it('reads a bundle whose shards carry 16 hex digits of their hash (written before 2026-12-04), and refuses another length', async () => {
    const { out, options } = setup(2);
    await buildIndex(options());
    const url = pathToFileURL(out).href;
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as BundleManifest;
    const query = { query: 'whale', k: 3, includeText: true, mode: 'sparse' } as const;
    const answer = async (): Promise<string[]> => {
      const engine = new Engine({ store: await BundleStore.open(url, { fetch: fileFetch }), embedder: new HashEmbedder(), readOnly: true });
      await engine.open();
      return (await search(engine, query)).hits.map((h) => String(h.id));
    };
    const now = await answer();
    expect(now.length).toBeGreaterThan(0);
    expect(manifest.texts.hashes.length).toBe(manifest.texts.bytes.length * 8);
    // The older form: each term and text shard named and listed by 16 digits.
    const widen = (dir: 'terms' | 'texts', listing: BundleManifest['terms']): string => {
      let hashes = '';
      listing.bytes.forEach((_, i) => {
        const short = listing.hashes.slice(i * 8, (i + 1) * 8);
        const long = createHash('sha256').update(readFileSync(join(out, dir, `${i}-${short}.bin`))).digest('hex').slice(0, 16);
        renameSync(join(out, dir, `${i}-${short}.bin`), join(out, dir, `${i}-${long}.bin`));
        hashes += long;
      });
      return hashes;
    };
    const old = { ...manifest, terms: { ...manifest.terms, hashes: widen('terms', manifest.terms) }, texts: { ...manifest.texts, hashes: widen('texts', manifest.texts) } };
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify(old));
    expect(await answer()).toEqual(now);
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify({ ...old, texts: { ...old.texts, hashes: old.texts.hashes.slice(0, old.texts.bytes.length * 12) } }));
    await expect(BundleStore.open(url, { fetch: fileFetch })).rejects.toThrow(/is damaged/);
  });

  it('files the page fetched ahead are used instead of fetched, and checked like fetched ones', async () => {
    const { out, options } = setup(2);
    await buildIndex(options());
    const url = pathToFileURL(out).href;
    const base = url.endsWith('/') ? url : `${url}/`;
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as BundleManifest;
    const bytes = (path: string): ArrayBuffer => new Uint8Array(readFileSync(join(out, path))).buffer;
    const fetched: string[] = [];
    const recording: typeof fileFetch = (u, init) => (fetched.push(u.slice(base.length)), fileFetch(u, init));
    const primed = [
      { url: `${base}${MANIFEST_FILE}`, bytes: bytes(MANIFEST_FILE) },
      { url: `${base}${manifest.core.path}`, bytes: bytes(manifest.core.path) },
    ];
    const store = await BundleStore.open(url, { fetch: recording, cache: false, primed });
    const engine = new Engine({ store, embedder: new HashEmbedder(), readOnly: true });
    await engine.open();
    expect((await search(engine, { query: 'whale', k: 3, mode: 'sparse' })).hits.length).toBeGreaterThan(0);
    expect(fetched).not.toContain(MANIFEST_FILE);
    expect(fetched).not.toContain(manifest.core.path);
    expect(fetched.length).toBeGreaterThan(0); // the query's own shards still came over the network

    // A primed core cut short is refused by name, as a fetched one would be; the next read fetches it.
    fetched.length = 0;
    const cut = [primed[0], { ...primed[1], bytes: primed[1].bytes.slice(0, 10) }];
    const damaged = new Engine({ store: await BundleStore.open(url, { fetch: recording, cache: false, primed: cut }), embedder: new HashEmbedder(), readOnly: true });
    await expect(damaged.open()).rejects.toThrow(/does not match the bundle manifest/);
    await damaged.open();
    expect(fetched).toContain(manifest.core.path);
    expect((await search(damaged, { query: 'whale', k: 3, mode: 'sparse' })).hits.length).toBeGreaterThan(0);
  });
});
