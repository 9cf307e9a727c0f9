/**
 * Precomputed document vectors (src/models/precomputed.ts): the file round-trips, a row is found
 * only by its exact text, a table from another model or embedding runtime is refused, and the
 * runtime's embedder answers document embeddings from the table (the rest from the model).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelRuntime } from '../../src/models/runtime.ts';
import {
  decodePrecomputed,
  decodePrecomputedHeader,
  EMBEDDING_RUNTIME_VERSION,
  encodePrecomputed,
  lookupPrecomputed,
  precomputedFileName,
  precomputedMismatch,
} from '../../src/models/precomputed.ts';
import { ensureModel, MODEL_BASE } from './ensure-model.ts';

const unit = (dim: number, at: number) => Float32Array.from({ length: dim }, (_, i) => (i === at ? 1 : 0));

describe('precomputed vectors file', () => {
  it('round-trips and finds a row only by its exact text', async () => {
    const bytes = await encodePrecomputed({ model: 'm@sha256:0123456789ab', dimension: 3, corpusVersion: 'v1' }, ['alpha', 'beta'], [unit(3, 0), unit(3, 2)]);
    const table = decodePrecomputed(bytes);
    expect(table.header).toMatchObject({ format: 2, model: 'm@sha256:0123456789ab', dimension: 3, count: 2, kind: 'document', runtime: EMBEDDING_RUNTIME_VERSION, corpusVersion: 'v1' });
    const [a, b, miss, near] = await lookupPrecomputed(table, ['alpha', 'beta', 'gamma', 'alpha ']);
    expect(Array.from(a!)).toEqual([1, 0, 0]);
    expect(Array.from(b!)).toEqual([0, 0, 1]);
    expect([miss, near]).toEqual([undefined, undefined]);
  });

  it('refuses a truncated or foreign file, and names why a table does not fit the model', async () => {
    const bytes = await encodePrecomputed({ model: 'm@sha256:0123456789ab', dimension: 3 }, ['alpha'], [unit(3, 0)]);
    expect(() => decodePrecomputed(bytes.subarray(0, bytes.length - 4))).toThrow(/bytes/);
    expect(() => decodePrecomputedHeader(new TextEncoder().encode('{"not":"it"}'))).toThrow(/magic/);
    const { header } = decodePrecomputed(bytes);
    expect(precomputedMismatch(header, { identity: 'm@sha256:0123456789ab', dimension: 3 })).toBeUndefined();
    expect(precomputedMismatch(header, { identity: 'm@sha256:ffffffffffff', dimension: 3 })).toMatch(/running model is m@sha256:ffff/);
    expect(precomputedMismatch({ ...header, runtime: 'older' }, { identity: 'm@sha256:0123456789ab', dimension: 3 })).toMatch(/runtime 'older'/);
    expect(precomputedFileName('Xenova/x')).toBe('vectors-Xenova--x.bin');
  });
});

describe('ModelRuntime with precomputed vectors', () => {
  const MODEL = 'glove-static-100d';
  beforeAll(() => ensureModel(), 120_000);
  afterEach(() => vi.unstubAllGlobals());

  /** A runtime whose `/sample/vectors-<model>.bin` is `file` (fetch stubbed), with its log lines. */
  async function runtimeServing(file: Uint8Array | undefined) {
    const urls: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      urls.push(String(url));
      return file ? new Response(file as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/octet-stream' } }) : new Response('', { status: 404 });
    });
    const runtime = (await ModelRuntime.open({ modelBase: MODEL_BASE, config: { embedder: MODEL, dtype: 'q8', device: 'auto' }, precomputedBase: '/sample/' }))!;
    const log: string[] = [];
    runtime.subscribe((level, message) => log.push(`${level}: ${message}`));
    return { runtime, urls, log };
  }

  it('answers texts in the table from it and the others from the model; queries never from it', async () => {
    const probe = (await ModelRuntime.open({ modelBase: MODEL_BASE, config: { embedder: MODEL, dtype: 'q8', device: 'auto' } }))!;
    const dim = probe.dimension;
    const marker = unit(dim, 7); // no real GloVe vector of a sentence is a basis vector
    const file = await encodePrecomputed({ model: probe.identity, dimension: dim }, ['the white whale'], [marker]);
    const { runtime, urls, log } = await runtimeServing(file);
    const [fromTable, fromModel] = await runtime.embedder.embed(['the white whale', 'the white whale!'], 'document');
    expect(Array.from(fromTable)).toEqual(Array.from(marker));
    expect(Array.from(fromModel)).not.toEqual(Array.from(marker));
    const [query] = await runtime.embedder.embed(['the white whale'], 'query');
    expect(Array.from(query)).not.toEqual(Array.from(marker));
    await runtime.embedder.embed(['the white whale'], 'document');
    expect(urls).toEqual([`/sample/vectors-${MODEL}.bin`]); // fetched once
    expect(log.join('\n')).toMatch(/precomputed vectors .* 1 document vectors/);
  });

  it('ignores, with a warning, a table made by another model identity', async () => {
    const probe = (await ModelRuntime.open({ modelBase: MODEL_BASE, config: { embedder: MODEL, dtype: 'q8', device: 'auto' } }))!;
    const marker = unit(probe.dimension, 7);
    const file = await encodePrecomputed({ model: `${MODEL}@sha256:000000000000`, dimension: probe.dimension }, ['the white whale'], [marker]);
    const { runtime, log } = await runtimeServing(file);
    const [v] = await runtime.embedder.embed(['the white whale'], 'document');
    expect(Array.from(v)).not.toEqual(Array.from(marker));
    expect(log.join('\n')).toMatch(/warning: precomputed vectors .* ignored: made by glove-static-100d@sha256:000000000000/);
  });

  it('runs without a table when there is none (404), silently', async () => {
    const { runtime, log } = await runtimeServing(undefined);
    const [v] = await runtime.embedder.embed(['the white whale'], 'document');
    expect(v.length).toBe(runtime.dimension);
    expect(log.join('\n')).not.toMatch(/precomputed/);
  });
});
