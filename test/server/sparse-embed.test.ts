/**
 * `embed/sparse` (§7.4) over the in-memory transport, served as the worker serves it: the
 * ModelRuntime opens the configured learned-sparse encoder (SPLADE-tiny, built by `npm run models`),
 * `sparseEmbed` is advertised before any of its weights load, the first call loads them, and
 * frames validate against the normative schema. Bad params get typed errors; a model that cannot
 * load is -32010 (retryable) with the capability kept. Skips (loudly) outside CI when not built.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { SPLADE_TINY } from '../../scripts/models/splade.ts';
import { Engine } from '../../src/engine/engine.ts';
import { ModelLog } from '../../src/models/model-log.ts';
import { openSparseEncoder } from '../../src/models/model-loader.ts';
import { ModelRuntime } from '../../src/models/runtime.ts';
import type { ModelStatus } from '../../src/protocol/control.ts';
import { advertisedCapabilities, modelCapabilities, SESSION_CAPABILITIES } from '../../src/server/capabilities.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createSparseEmbedHandler, type SparseModelEncoder } from '../../src/server/model-handlers.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { modelsBuilt } from '../support/built-models.ts';
import { loadRcpSchema } from '../../tools/lib/rcp-schema.ts';
import { connect } from '../support/rcp-harness.ts';

const BASE = `${MODELS_DIR}/`;
const BUILT = modelsBuilt(SPLADE_TINY.name, [`${BASE}${SPLADE_TINY.name}/manifest.json`, `${BASE}${SPLADE_TINY.name}/onnx/model.onnx`, `${BASE}minilm-l6-v2/manifest.json`]);
const VOCAB = BUILT ? (JSON.parse(readFileSync(`${BASE}${SPLADE_TINY.name}/tokenizer.json`, 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab : {};

/** A session served like the worker's: engine, runtime's capabilities, the sparse handler. */
async function session(sparse: (SparseModelEncoder & { identity: string; vocabulary: number }) | undefined) {
  const engine = new Engine({ store: new MemoryStore() });
  await engine.open();
  const capabilities = advertisedCapabilities({ engine: engine.capabilities(), models: modelCapabilities({ sparseEncoder: sparse }), session: SESSION_CAPABILITIES });
  const backend = createEngineBackend({
    serverInfo: { name: 'sparse-test', version: '0' },
    engine: Promise.resolve(engine),
    capabilities,
    extraHandlers: sparse ? createSparseEmbedHandler(sparse) : {},
  });
  const t = connect(backend);
  const init = await t.init();
  // Model calls take seconds on a loaded machine (the first one loads the weights): wait longer than the harness's 2 s.
  const call = (id: unknown, method: string, params?: unknown) => {
    t.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return t.waitFor((m) => m && m.id === id && !('method' in m), 60_000);
  };
  return { t: { ...t, call }, caps: init.result.capabilities };
}

describe.skipIf(!BUILT)('embed/sparse served by the runtime (SPLADE-tiny)', () => {
  let runtime: ModelRuntime;
  const schema = loadRcpSchema();

  beforeAll(async () => {
    runtime = (await ModelRuntime.open({ modelBase: BASE, config: { embedder: 'minilm-l6-v2', dtype: 'q8', device: 'auto', sparseEncoder: SPLADE_TINY.name } }))!;
  }, 60_000);
  afterAll(() => runtime?.sparseEncoder?.dispose());

  it('advertises sparseEmbed before the weights load, and loads them on the first call only', async () => {
    const { t, caps } = await session(runtime.sparseEncoder);
    expect(caps.sparseEmbed).toEqual({ identity: expect.stringMatching(/^splade-tiny@sha256:[0-9a-f]{12}$/), vocabulary: 30522, batchLimit: 256 });
    expect(runtime.status().sparseEncoder).toBeUndefined();
    const r = await t.call(1, 'embed/sparse', { texts: ['the white whale'], kind: 'query' });
    expect(schema.result('embed/sparse', r.result)).toEqual([]);
    expect(runtime.status().sparseEncoder).toMatchObject({ name: 'splade-tiny', identity: caps.sparseEmbed.identity, device: 'cpu' });
    for (const f of t.received) expect(schema.frame(f), f.slice(0, 200)).toEqual([]);
  }, 60_000);

  it('answers vocabulary ids and learned weights: the words of the text weigh most, expansions follow', async () => {
    const { t } = await session(runtime.sparseEncoder);
    const r = await t.call(2, 'embed/sparse', { texts: ['The white whale swam beneath the ship.', 'state of the union'] });
    const [whale, union] = r.result.sparse as { indices: number[]; values: number[] }[];
    for (const v of [whale, union]) {
      expect(v.indices.length).toBe(v.values.length);
      expect(v.indices).toEqual([...v.indices].sort((a, b) => a - b));
      expect(v.indices.every((i) => Number.isInteger(i) && i >= 0 && i < 30522)).toBe(true);
      expect(v.values.every((x) => x > 0 && Number.isFinite(x))).toBe(true);
    }
    const weight = (v: { indices: number[]; values: number[] }, word: string) => v.values[v.indices.indexOf(VOCAB[word])] ?? 0;
    expect(weight(whale, 'whale')).toBeGreaterThan(1);
    expect(weight(whale, 'ship')).toBeGreaterThan(1);
    expect(weight(union, 'union')).toBeGreaterThan(1);
    expect(weight(union, 'whale')).toBe(0);
    // Expansion: a term that is not in the text (the reference gives 'fish' ≈ 1.4 here).
    expect(weight(whale, 'fish')).toBeGreaterThan(0.5);
  }, 60_000);

  it('encodes a query as a document (a symmetric model); an empty text has no terms', async () => {
    const { t } = await session(runtime.sparseEncoder);
    const q = await t.call(3, 'embed/sparse', { texts: ['railroad bill', ''], kind: 'query' });
    const d = await t.call(4, 'embed/sparse', { inputs: [{ type: 'text', text: 'railroad bill' }, '   '], kind: 'document' });
    expect(q.result.sparse[0]).toEqual(d.result.sparse[0]);
    expect(q.result.sparse[1]).toEqual({ indices: [], values: [] });
    expect(d.result.sparse[1]).toEqual({ indices: [], values: [] });
  }, 60_000);

  it('refuses bad params with typed errors', async () => {
    const { t } = await session(runtime.sparseEncoder);
    const expectError = async (params: unknown, code: number, data: Record<string, string>) => {
      const r = await t.call(JSON.stringify(params).slice(0, 40), 'embed/sparse', params);
      expect(r.error, JSON.stringify(params).slice(0, 80)).toMatchObject({ code, data });
    };
    await expectError({}, -32602, { field: 'texts' });
    await expectError({ texts: 'whale' }, -32602, { field: 'texts' });
    await expectError({ texts: ['ok', 7] }, -32602, { field: 'texts[1]' });
    await expectError({ texts: ['ok'], kind: 'passage' }, -32602, { field: 'kind' });
    await expectError({ texts: Array.from({ length: 257 }, () => 'x') }, -32013, { field: 'texts' });
    await expectError({ texts: ['ok'], encoding: 'f32-base64' }, -32005, { option: 'encoding' });
    for (const f of t.received) expect(schema.frame(f), f.slice(0, 200)).toEqual([]);
  });
});

describe.skipIf(!BUILT)('embed/sparse when the learned-sparse model is missing or broken', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sparse-'));
    // dereference: a linked model folder (a worktree's) must be copied, or the write below would break the real model.
    cpSync(`${BASE}${SPLADE_TINY.name}`, join(dir, SPLADE_TINY.name), { recursive: true, dereference: true });
    rmSync(join(dir, SPLADE_TINY.name, 'onnx/model.onnx'));
    writeFileSync(join(dir, SPLADE_TINY.name, 'onnx/model.onnx'), 'not an onnx file');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a model that cannot load is -32010 (retryable), and the capability stays', async () => {
    const log = new ModelLog();
    const status: ModelStatus = { name: 'x', identity: 'x', state: 'ready', progress: 1 };
    const broken = await openSparseEncoder({ name: SPLADE_TINY.name, base: `${dir}/`, node: true, settings: {}, log, status });
    expect(broken).toBeDefined();
    const { t, caps } = await session(broken);
    expect(caps.sparseEmbed).toBeDefined();
    const r = await t.call(1, 'embed/sparse', { texts: ['whale'] });
    expect(r.error).toMatchObject({ code: -32010, data: { retryable: true } });
    expect(r.error.message).toMatch(/sparse encoder splade-tiny is unavailable: .*(protobuf|onnx|model)/i);
  }, 60_000);

  it('a folder that is not a learned-sparse model is not offered; without one, embed/sparse is -32003', async () => {
    const log = new ModelLog();
    const lines: string[] = [];
    log.subscribe((_level, message) => lines.push(message));
    const status: ModelStatus = { name: 'x', identity: 'x', state: 'ready', progress: 1 };
    expect(await openSparseEncoder({ name: 'minilm-l6-v2', base: BASE, node: true, settings: {}, log, status })).toBeUndefined();
    expect(await openSparseEncoder({ name: 'absent-model', base: BASE, node: true, settings: {}, log, status })).toBeUndefined();
    expect(lines.join('\n')).toMatch(/sparse encoder minilm-l6-v2 is not available \(embed\/sparse not offered\)/);
    const { t, caps } = await session(undefined);
    expect(caps.sparseEmbed).toBeUndefined();
    expect((await t.call(1, 'embed/sparse', { texts: ['whale'] })).error).toMatchObject({ code: -32003 });
  });
});
