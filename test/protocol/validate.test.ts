import { describe, expect, it } from 'vitest';
import { rcpError } from '../support/rcp-error.ts';
import type { Capabilities } from '../../src/protocol/types.ts';
import {
  clampFunnel, contentText, expectObject, optBool, optEnum, optInt, optNumber, optString, paramsObject, utf8Length,
  validateEmbed, validateEmbedMulti, validateIndexAdd, validateIndexDelete, validateInitialize, validatePing,
  validateRerank, validateRetrieve,
} from '../../src/protocol/validate.ts';

/** Asserts -32602 and returns data.field. */
const field = (fn: () => unknown): string | undefined => {
  const e = rcpError(fn);
  expect(e.code).toBe(-32602);
  return e.data?.field;
};
/** Asserts -32005 and returns data.option. */
const option = (fn: () => unknown): string | undefined => {
  const e = rcpError(fn);
  expect(e.code).toBe(-32005);
  return e.data?.option;
};
/** Asserts -32013 and returns data.field. */
const tooLarge = (fn: () => unknown): string | undefined => {
  const e = rcpError(fn);
  expect(e.code).toBe(-32013);
  expect(e.data?.detail).toBeTruthy();
  return e.data?.field;
};

const FULL: Capabilities = {
  retrieve: {
    maxK: 200, modes: ['dense', 'sparse', 'hybrid'], fusion: ['rrf', 'weighted'], mmr: true, rerankBuiltin: true,
    units: ['chunk', 'document'], tokenBudget: true, snapshots: true, defaultMode: 'hybrid', levels: 3,
  },
  rerank: { methods: ['cross-encoder'], maxCandidates: 50, models: ['ms-marco-mini'] },
  embed: { dimension: 384, identity: 'bge-small', encodings: ['json', 'f32-base64'], batchLimit: 2 },
  multiVector: { dimension: 128, identity: 'colbert', modalities: ['text', 'image'] },
  filter: { fields: { lang: 'keyword', year: 'int', published: 'date' }, operators: ['eq', 'gte', 'in'] },
  pagination: {},
  transform: { methods: ['hyde'] },
  index: { writable: true, chunking: true, maxDocuments: 3, maxBytes: 12 },
};
const MIN: Capabilities = { retrieve: { modes: ['dense', 'sparse'], defaultMode: 'sparse' } };
const rv = (p: Record<string, unknown>, caps: Capabilities = FULL) => validateRetrieve({ query: 'q', ...p }, caps);

describe('§4.6 toolkit', () => {
  const o = { i: 3, f: 1.5, neg: -1, big: 2 ** 53, s: 'x', b: true, n: null, str: '3', one: 1 };
  it('§4.6 integers: no fractional part, within ±(2^53−1), never strings', () => {
    expect(optInt(o, 'i')).toBe(3);
    expect(field(() => optInt(o, 'f', 'rerank.topN'))).toBe('rerank.topN');
    expect(field(() => optInt(o, 'big'))).toBe('big');
    expect(field(() => optInt(o, 'str'))).toBe('str');
    expect(field(() => optInt(o, 'neg', 'k', { min: 1 }))).toBe('k');
    expect(optInt({ m: -(2 ** 53 - 1) }, 'm')).toBe(-(2 ** 53 - 1));
  });
  it('§4.6 null and missing are absent; prototype members are never read', () => {
    expect(optInt(o, 'n')).toBeUndefined();
    expect(optString(o, 'missing')).toBeUndefined();
    expect(optString({}, 'toString')).toBeUndefined();
    expect(optBool(o, 'n')).toBeUndefined();
  });
  it('§4.6 booleans are true/false only, enums are case-sensitive', () => {
    expect(optBool(o, 'b')).toBe(true);
    expect(field(() => optBool(o, 'one'))).toBe('one');
    expect(field(() => optBool({ x: 'true' }, 'x'))).toBe('x');
    expect(optEnum({ m: 'dense' }, 'm', 'mode', ['dense'])).toBe('dense');
    expect(field(() => optEnum({ m: 'Dense' }, 'm', 'mode', ['dense']))).toBe('mode');
  });
  it('§4.6 numbers must be finite; ranges are enforced', () => {
    expect(field(() => optNumber({ x: Infinity }, 'x'))).toBe('x');
    expect(field(() => optNumber({ x: 0 }, 'x', 'x', { above: 0 }))).toBe('x');
    expect(field(() => optNumber({ x: 1.1 }, 'x', 'x', { max: 1 }))).toBe('x');
    expect(optNumber({ x: 1 }, 'x', 'x', { min: 0, max: 1 })).toBe(1);
  });
  it('§4.6 objects: arrays and null are not objects; absent params are {}', () => {
    expect(field(() => expectObject([], 'fusion'))).toBe('fusion');
    expect(paramsObject(undefined)).toEqual({});
    expect(paramsObject(null)).toEqual({});
    expect(field(() => paramsObject([1]))).toBe('params');
  });
  it('utf8Length matches Buffer.byteLength, including astral and lone surrogates', () => {
    for (const s of ['', 'abc', 'é', '日本語', '\u{1f600}x', 'a\ud800b']) expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
  });
});

describe('§7.15 ping and §7.1 initialize', () => {
  it('§7.15 nonce is an optional string or number', () => {
    expect(validatePing(undefined)).toEqual({});
    expect(validatePing({ nonce: 'n1', extra: 1 })).toEqual({ nonce: 'n1' });
    expect(validatePing({ nonce: 7 })).toEqual({ nonce: 7 });
    expect(field(() => validatePing({ nonce: {} }))).toBe('nonce');
  });
  it('§7.1 protocolVersion is a required integer; client/capabilities are objects', () => {
    expect(validateInitialize({ protocolVersion: 1, client: { name: 'c', version: '1' }, capabilities: {}, 'x-acme': 1 }))
      .toEqual({ protocolVersion: 1, client: { name: 'c', version: '1' }, capabilities: {} });
    expect(field(() => validateInitialize({}))).toBe('protocolVersion');
    expect(field(() => validateInitialize({ protocolVersion: '1' }))).toBe('protocolVersion');
    expect(field(() => validateInitialize({ protocolVersion: 1.5 }))).toBe('protocolVersion');
    expect(field(() => validateInitialize({ protocolVersion: 1, client: 'me' }))).toBe('client');
    expect(field(() => validateInitialize({ protocolVersion: 1, client: { name: 3 } }))).toBe('client.name');
    expect(field(() => validateInitialize({ protocolVersion: 1, capabilities: [] }))).toBe('capabilities');
    expect(validateInitialize({ protocolVersion: 1, client: null, _meta: { t: 1 } })).toEqual({ protocolVersion: 1, _meta: { t: 1 } });
  });
});

describe('§7.7 retrieve structure', () => {
  it('§7.7 a bare query validates; strict defaults to true; unknown fields are ignored', () => {
    const r = rv({ 'x-acme': { a: 1 }, future: true, _meta: { progressToken: 1 } });
    expect(r).toEqual({ params: { query: 'q', strict: true, _meta: { progressToken: 1 } }, notes: [] });
  });
  it('§7.7 query is required: a string, a text block, or a non-empty array of blocks', () => {
    expect(field(() => validateRetrieve({}, FULL))).toBe('query');
    expect(field(() => validateRetrieve({ query: null }, FULL))).toBe('query');
    expect(field(() => validateRetrieve({ query: 42 }, FULL))).toBe('query');
    expect(field(() => validateRetrieve({ query: [] }, FULL))).toBe('query');
    expect(field(() => validateRetrieve({ query: [{ type: 'text' }] }, FULL))).toBe('query[0].text');
    expect(field(() => validateRetrieve({ query: { type: 'video', text: 'x' } }, FULL))).toBe('query.type');
    const blocks = [{ type: 'text', text: 'a' }, { type: 'text', text: 'b', extra: 1 }];
    expect(validateRetrieve({ query: blocks }, FULL).params.query).toEqual([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]);
    expect(contentText(blocks as never)).toBe('a\nb');
  });
  it('§4.8 a non-text block on a text-only server is -32005 modality; a malformed one is -32602', () => {
    const img = { type: 'image', mimeType: 'image/png', data: 'AAAA' };
    expect(option(() => validateRetrieve({ query: img }, FULL))).toBe('modality');
    expect(option(() => validateRetrieve({ query: [{ type: 'text', text: 'a' }, img] }, FULL))).toBe('modality');
    expect(field(() => validateRetrieve({ query: { type: 'image', data: 'AAAA' } }, FULL))).toBe('query.mimeType');
    expect(field(() => validateRetrieve({ query: { type: 'image', mimeType: 'image/png', data: 'AAAA', uri: 'https://x' } }, FULL))).toBe('query');
    const caps: Capabilities = { retrieve: { modalities: ['text', 'image'] } };
    expect(validateRetrieve({ query: img }, caps).params.query).toEqual(img);
  });
  it.each([0, -1, 1.5, '10', true, {}])('§7.7 k = %j is -32602 field k', (k) => {
    expect(field(() => rv({ k }))).toBe('k');
  });
  it('§4.6 null options are absent', () => {
    expect(rv({ k: null, mode: null, rerank: null, filter: null, fusion: null }).params).toEqual({ query: 'q', strict: true });
  });
  it.each([
    [{ candidateK: 0 }, 'candidateK'], [{ mode: 5 }, 'mode'],
    [{ fusion: 'rrf' }, 'fusion'], [{ fusion: { rrfK: 0 } }, 'fusion.rrfK'],
    [{ fusion: { alpha: 1.5 } }, 'fusion.alpha'], [{ fusion: { weights: { dense: -1 } } }, 'fusion.weights.dense'],
    [{ fusion: { weights: [] } }, 'fusion.weights'], [{ rerank: true }, 'rerank'], [{ rerank: { topN: 0 } }, 'rerank.topN'],
    [{ rerank: { method: 2 } }, 'rerank.method'], [{ mmr: { lambda: 2 } }, 'mmr.lambda'], [{ mmr: 0.5 }, 'mmr'],
    [{ rewrite: 1 }, 'rewrite'], [{ rewrite: true }, 'rewrite'], [{ minScore: 'high' }, 'minScore'],
    [{ unit: 5 }, 'unit'], [{ level: -1 }, 'level'], [{ tokenBudget: 0 }, 'tokenBudget'],
    [{ fusion: { method: 1 } }, 'fusion.method'], [{ modality: {} }, 'modality'],
    [{ sessionId: 5 }, 'sessionId'], [{ includeText: 'yes' }, 'includeText'], [{ includeVectors: 1 }, 'includeVectors'],
    [{ encoding: [] }, 'encoding'], [{ seed: 1.5 }, 'seed'], [{ indexVersion: 3 }, 'indexVersion'],
    [{ strict: 'false' }, 'strict'], [{ cursor: {} }, 'cursor'], [{ recency: { field: 'published', halfLifeDays: 0 } }, 'recency.halfLifeDays'],
    [{ recency: { field: 'published' } }, 'recency.halfLifeDays'], [{ recency: { halfLifeDays: 3 } }, 'recency.field'],
    [{ recency: { field: 'lang', halfLifeDays: 3 } }, 'recency.field'], [{ recency: { field: 'nope', halfLifeDays: 3 } }, 'recency.field'],
    [{ filter: { and: [{ field: 'secret', op: 'eq', value: 1 }] } }, 'filter.and[0].field'],
    [{ filter: { field: 'year', op: 'gte', value: '2020' } }, 'filter.value'],
  ])('§7.7 %j is -32602 field %s', (p, f) => {
    expect(field(() => rv(p))).toBe(f);
  });
  it('§7.7 well-formed options come back typed, with defaults for fusion.method and mmr.lambda', () => {
    const { params, notes } = rv({
      k: 5, mode: 'hybrid', candidateK: 50, fusion: { weights: { dense: 0.7, sparse: 0.3, other: 'x' }, rrfK: 30 },
      rerank: { topN: 20, model: 'ms-marco-mini' }, mmr: {}, filter: { field: 'year', op: 'gte', value: 2020 },
      minScore: -0.5, recency: { field: 'published', halfLifeDays: 30 }, unit: 'document', level: 2, tokenBudget: 4000,
      sessionId: 's', includeText: false, includeVectors: true, encoding: 'f32-base64', seed: -9, indexVersion: 'v1',
      strict: true, cursor: 'c', rewrite: 'hyde',
    });
    expect(notes).toEqual([]);
    expect(params).toEqual({
      query: 'q', k: 5, mode: 'hybrid', candidateK: 50, fusion: { method: 'rrf', weights: { dense: 0.7, sparse: 0.3 }, rrfK: 30 },
      // No rerank.method: the server's preferred one is chosen with the reranker (src/engine/serving.ts).
      rerank: { topN: 20, model: 'ms-marco-mini' }, mmr: { lambda: 0.5 },
      filter: { field: 'year', op: 'gte', value: 2020 }, minScore: -0.5, recency: { field: 'published', halfLifeDays: 30 },
      unit: 'document', level: 2, tokenBudget: 4000, sessionId: 's', includeText: false, includeVectors: true,
      encoding: 'f32-base64', seed: -9, indexVersion: 'v1', strict: true, cursor: 'c', rewrite: 'hyde',
    });
  });
  it('§7.7 rerank:false and rewrite:false are kept as false', () => {
    expect(rv({ rerank: false, rewrite: false }, MIN).params).toMatchObject({ rerank: false, rewrite: false });
  });
});

describe('§3.3 funnel', () => {
  it('§3.3 candidateK < k is -32602 field candidateK', () => {
    expect(field(() => rv({ k: 20, candidateK: 10 }))).toBe('candidateK');
  });
  it('§3.3 rerank.topN < k is -32602 field rerank.topN', () => {
    expect(field(() => rv({ k: 20, rerank: { topN: 10 } }))).toBe('rerank.topN');
  });
  it('§3.3 candidateK < rerank.topN is -32602 field candidateK', () => {
    expect(field(() => rv({ candidateK: 10, rerank: { topN: 20 } }))).toBe('candidateK');
  });
  it('§3.3 equal knobs and values above maxK are not errors (§12: clamp)', () => {
    expect(rv({ k: 10, candidateK: 10, rerank: { topN: 10 } }).params.k).toBe(10);
    expect(rv({ k: 1000, candidateK: 5000 }).params).toMatchObject({ k: 1000, candidateK: 5000 });
  });
});

describe('§7.7 option gating', () => {
  it.each([
    [{ mode: 'hybrid' }, 'mode'], [{ fusion: { method: 'rrf' } }, 'fusion.method'], [{ rerank: {} }, 'rerank'],
    [{ mmr: { lambda: 0.3 } }, 'mmr'], [{ unit: 'document' }, 'unit'], [{ level: 1 }, 'level'], [{ tokenBudget: 100 }, 'tokenBudget'],
    [{ includeVectors: true }, 'includeVectors'], [{ encoding: 'f32-base64' }, 'encoding'], [{ cursor: 'c' }, 'cursor'],
    [{ indexVersion: 'v1' }, 'indexVersion'], [{ rewrite: 'hyde' }, 'rewrite'], [{ modality: 'image' }, 'modality'],
    [{ filter: { field: 'lang', op: 'eq', value: 'en' } }, 'filter'],
  ])('§7.7 %j on a minimal server is -32005 option %s', (p, opt) => {
    expect(option(() => rv(p, MIN))).toBe(opt);
  });
  it.each([
    [{ fusion: { method: 'convex' } }, 'fusion.method'], [{ rerank: { method: 'colbert' } }, 'rerank.method'],
    [{ rerank: { model: 'gpt' } }, 'rerank.model'], [{ level: 3 }, 'level'], [{ rewrite: 'decompose' }, 'rewrite'],
    [{ unit: 'page' }, 'unit'], [{ filter: { field: 'lang', op: 'ne', value: 'en' } }, 'filter.op:ne'],
    // §7.7 / §12: a mode string no server could support is still "an unsupported mode" (-32005), not malformed.
    [{ mode: 'quantum' }, 'mode'], [{ mode: 'DENSE' }, 'mode'],
    // The same rule for every enumerated option (§7.7, §12 "a mode, rerank.method, filter operator"):
    // a string outside the advertised set is -32005 whether or not RCP defines it; only a wrong type is -32602.
    [{ rerank: { method: 'bm25' } }, 'rerank.method'], [{ fusion: { method: 'magic' } }, 'fusion.method'],
    [{ unit: 'paragraph' }, 'unit'], [{ encoding: 'f16' }, 'encoding'], [{ rewrite: 'magic' }, 'rewrite'],
    [{ modality: 'smell' }, 'modality'], [{ modality: 'video' }, 'modality'], [{ fusion: { method: 'max' } }, 'fusion.method'],
  ])('§7.7 %j outside the advertised set is -32005 option %s', (p, opt) => {
    expect(option(() => rv(p))).toBe(opt);
  });
  it('§7.7 supported or harmless values pass on a minimal server', () => {
    const { params, notes } = rv({ sessionId: 's', seed: 1, includeVectors: false, encoding: 'json', unit: 'passage', level: 0, rerank: false, rewrite: false, mode: 'dense' }, MIN);
    expect(notes).toEqual([]);
    expect(params).toMatchObject({ sessionId: 's', seed: 1, unit: 'passage', mode: 'dense' });
  });
  it('§7.7 strict:false falls back and notes each degradation', () => {
    const { params, notes } = rv({
      strict: false, mode: 'hybrid', rerank: { topN: 10 }, mmr: {}, unit: 'tree-node', tokenBudget: 9, includeVectors: true,
      encoding: 'f32-base64', cursor: 'c', rewrite: 'hyde', modality: 'image', level: 2, fusion: { method: 'convex' },
      filter: { field: 'x', op: 'eq', value: 1 },
    }, MIN);
    expect(params).toEqual({ query: 'q', strict: false, mode: 'sparse', unit: 'chunk', includeVectors: false, encoding: 'json' });
    expect(notes).toContain("mode 'hybrid' unsupported; used 'sparse'");
    expect(notes).toContain("fusion 'convex' unsupported; ignored");
    expect(notes).toContain('rerank unsupported; ignored');
    expect(notes).toContain('filter unsupported; ignored');
    expect(notes).toHaveLength(13);
  });
  it('§7.7 strict:false substitutes the first advertised method', () => {
    const { params, notes } = rv({ strict: false, fusion: { method: 'convex' }, rerank: { method: 'llm', model: 'gpt' } });
    expect(params.fusion).toEqual({ method: 'rrf' });
    expect(params.rerank).toEqual({ method: 'cross-encoder' });
    expect(notes).toEqual(["fusion 'convex' unsupported; used 'rrf'", "rerank method 'llm' unsupported; used 'cross-encoder'", "rerank model 'gpt' unsupported; used the default model"]);
  });
  it('§7.7.1 an unservable indexVersion errors even with strict:false', () => {
    expect(option(() => rv({ indexVersion: 'v9', strict: false }, MIN))).toBe('indexVersion');
  });
  it('§8 an unadvertised filter operator errors even with strict:false', () => {
    expect(option(() => rv({ strict: false, filter: { field: 'lang', op: 'ne', value: 'en' } }))).toBe('filter.op:ne');
  });
});

describe('§7.7 clampFunnel', () => {
  const eff = (p: Record<string, unknown>, caps: Capabilities = FULL) => clampFunnel(rv(p, caps).params, caps);
  it('§7.7 defaults: k 10, candidateK max(k, 100), no topN without rerank', () => {
    expect(eff({}, MIN)).toEqual({ k: 10, candidateK: 100, notes: [] });
    expect(eff({ k: 150 }, MIN)).toEqual({ k: 150, candidateK: 150, notes: [] });
    expect(eff({ candidateK: 5 }, MIN)).toEqual({ k: 5, candidateK: 5, notes: [] });
  });
  it('§7.7 k and candidateK clamp to maxK without error', () => {
    const f = eff({ k: 1000 });
    expect(f).toMatchObject({ k: 200, candidateK: 200 });
    expect(f.notes).toEqual(['k 1000 clamped to maxK 200']);
  });
  it('§7.7 topN defaults to candidateK and clamps to rerank.maxCandidates', () => {
    expect(eff({ rerank: {} })).toMatchObject({ k: 10, candidateK: 100, topN: 50 });
    const f = eff({ k: 5, rerank: { topN: 300 } });
    expect(f).toMatchObject({ k: 5, candidateK: 200, topN: 50 });
    expect(f.notes).toEqual(['rerank.topN 200 clamped to maxCandidates 50']);
  });
  it('§3.3 effective values keep topN ≤ candidateK and k ≤ candidateK', () => {
    for (const p of [{}, { k: 3 }, { k: 300, rerank: {} }, { candidateK: 7, rerank: { topN: 7 } }, { rerank: { topN: 40 } }]) {
      const f = eff(p);
      expect(f.k).toBeLessThanOrEqual(f.candidateK);
      if (f.topN !== undefined) expect(f.topN).toBeLessThanOrEqual(f.candidateK);
    }
  });
});

describe('§7.10 index/add and §7.11 index/delete', () => {
  it('§7.10 documents are validated element by element', () => {
    expect(validateIndexAdd({ documents: [] }, FULL)).toEqual({ documents: [] });
    expect(validateIndexAdd({ documents: [{ id: 'a', text: 'hi', meta: { y: 1 }, x: 1 }, { text: '', meta: null }] }, FULL))
      .toEqual({ documents: [{ id: 'a', text: 'hi', meta: { y: 1 } }, { text: '' }] });
    expect(field(() => validateIndexAdd({}, FULL))).toBe('documents');
    expect(field(() => validateIndexAdd({ documents: {} }, FULL))).toBe('documents');
    expect(field(() => validateIndexAdd({ documents: [{ text: 'a' }, 'b'] }, FULL))).toBe('documents[1]');
    expect(field(() => validateIndexAdd({ documents: [{ text: 'a' }, {}] }, FULL))).toBe('documents[1].text');
    expect(field(() => validateIndexAdd({ documents: [{ text: 3 }] }, FULL))).toBe('documents[0].text');
    expect(field(() => validateIndexAdd({ documents: [{ id: '', text: 'a' }] }, FULL))).toBe('documents[0].id');
    expect(field(() => validateIndexAdd({ documents: [{ id: 7, text: 'a' }] }, FULL))).toBe('documents[0].id');
    expect(field(() => validateIndexAdd({ documents: [{ text: 'a', meta: [] }] }, FULL))).toBe('documents[0].meta');
  });
  it('§7.10 chunk/contextual need index.chunking/contextual', () => {
    expect(validateIndexAdd({ documents: [], chunk: true, contextual: false }, FULL)).toEqual({ documents: [], chunk: true, contextual: false });
    expect(option(() => validateIndexAdd({ documents: [], contextual: true }, FULL))).toBe('contextual');
    expect(option(() => validateIndexAdd({ documents: [], chunk: true }, MIN))).toBe('chunk');
    expect(field(() => validateIndexAdd({ documents: [], chunk: 'yes' }, FULL))).toBe('chunk');
  });
  it('§15.5 maxDocuments and maxBytes (UTF-8) are -32013', () => {
    expect(tooLarge(() => validateIndexAdd({ documents: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }] }, FULL))).toBe('documents');
    expect(validateIndexAdd({ documents: [{ text: 'éééééé' }] }, FULL).documents).toHaveLength(1); // 12 bytes
    expect(tooLarge(() => validateIndexAdd({ documents: [{ text: 'ééééééa' }] }, FULL))).toBe('documents');
    expect(tooLarge(() => validateIndexAdd({ documents: [{ text: 'ab', meta: { k: 'abc' } }] }, FULL))).toBe('documents'); // 2 + 11
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    expect(field(() => validateIndexAdd({ documents: [{ text: 'a', meta: deep }] }, FULL))).toBe('documents[0].meta');
  });
  it('§7.11 ids is a required array of strings', () => {
    expect(validateIndexDelete({ ids: [] })).toEqual({ ids: [] });
    expect(validateIndexDelete({ ids: ['a', 'b'] })).toEqual({ ids: ['a', 'b'] });
    expect(field(() => validateIndexDelete(undefined))).toBe('ids');
    expect(field(() => validateIndexDelete({ ids: 'a' }))).toBe('ids');
    expect(field(() => validateIndexDelete({ ids: ['a', 2] }))).toBe('ids[1]');
  });
});

describe('§7.3 embed and §7.5 embed/multi', () => {
  it('§7.3 inputs (or legacy texts) are required; json is the default encoding', () => {
    expect(validateEmbed({ inputs: ['a', { type: 'text', text: 'b' }], kind: 'query' }, FULL))
      .toEqual({ inputs: ['a', { type: 'text', text: 'b' }], kind: 'query', encoding: 'json' });
    expect(validateEmbed({ texts: ['a'] }, FULL)).toEqual({ inputs: ['a'], encoding: 'json' });
    expect(validateEmbed({ inputs: [] }, FULL).inputs).toEqual([]);
    expect(field(() => validateEmbed({}, FULL))).toBe('inputs');
    expect(field(() => validateEmbed({ inputs: 'a' }, FULL))).toBe('inputs');
    expect(field(() => validateEmbed({ inputs: ['a', 3] }, FULL))).toBe('inputs[1]');
    expect(field(() => validateEmbed({ texts: [null] }, FULL))).toBe('texts[0]');
    expect(field(() => validateEmbed({ inputs: ['a'], kind: 'passage' }, FULL))).toBe('kind');
  });
  it('§4.8 a non-text input needs an advertised modality', () => {
    const img = { type: 'image', mimeType: 'image/png', uri: 'https://example.com/p.png' };
    expect(option(() => validateEmbed({ inputs: [img] }, FULL))).toBe('modality');
    expect(validateEmbedMulti({ inputs: [img] }, FULL).inputs).toEqual([img]);
  });
  it('§7.3.1 an unadvertised encoding is -32005, or json under strict:false', () => {
    expect(validateEmbed({ inputs: ['a'], encoding: 'f32-base64' }, FULL).encoding).toBe('f32-base64');
    expect(option(() => validateEmbedMulti({ inputs: ['a'], encoding: 'f32-base64' }, FULL))).toBe('encoding');
    expect(validateEmbedMulti({ inputs: ['a'], encoding: 'f32-base64', strict: false }, FULL).encoding).toBe('json');
    expect(option(() => validateEmbed({ inputs: ['a'], encoding: 'base64' }, FULL))).toBe('encoding'); // not advertised (§7.3.1, §12)
    expect(field(() => validateEmbed({ inputs: ['a'], encoding: 5 }, FULL))).toBe('encoding');
  });
  it('§15.5 more inputs than embed.batchLimit is -32013 naming the list', () => {
    expect(tooLarge(() => validateEmbed({ inputs: ['a', 'b', 'c'] }, FULL))).toBe('inputs');
    expect(tooLarge(() => validateEmbed({ texts: ['a', 'b', 'c'] }, FULL))).toBe('texts');
    expect(validateEmbed({ inputs: ['a', 'b'] }, FULL).inputs).toHaveLength(2);
  });
});

describe('§7.6 rerank', () => {
  it('§7.6 query and passages (or legacy documents) are required', () => {
    expect(validateRerank({ query: 'q', passages: ['a', { type: 'text', text: 'b' }], topN: 1 }, FULL))
      .toEqual({ query: 'q', passages: ['a', 'b'], topN: 1 });
    expect(validateRerank({ query: 'q', documents: ['a'] }, FULL)).toEqual({ query: 'q', passages: ['a'] });
    expect(field(() => validateRerank({ passages: ['a'] }, FULL))).toBe('query');
    expect(field(() => validateRerank({ query: 'q' }, FULL))).toBe('passages');
    expect(field(() => validateRerank({ query: 'q', passages: [1] }, FULL))).toBe('passages[0]');
    expect(field(() => validateRerank({ query: 'q', passages: ['a'], topN: 0 }, FULL))).toBe('topN');
  });
  it('§7.6 method must be in rerank.methods, model in rerank.models', () => {
    expect(validateRerank({ query: 'q', passages: [], method: 'cross-encoder', model: 'ms-marco-mini' }, FULL))
      .toMatchObject({ method: 'cross-encoder', model: 'ms-marco-mini' });
    expect(option(() => validateRerank({ query: 'q', passages: [], method: 'llm' }, FULL))).toBe('method');
    expect(option(() => validateRerank({ query: 'q', passages: [], model: 'big' }, FULL))).toBe('model');
    expect(option(() => validateRerank({ query: 'q', passages: [], method: 'LLM' }, FULL))).toBe('method'); // §12: not in the advertised set
    expect(field(() => validateRerank({ query: 'q', passages: [], method: 3 }, FULL))).toBe('method');
  });
  it('§15.5 more passages than rerank.maxCandidates is -32013', () => {
    expect(tooLarge(() => validateRerank({ query: 'q', passages: Array(51).fill('p') }, FULL))).toBe('passages');
  });
});
