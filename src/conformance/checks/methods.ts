/**
 * The optional methods and surfaces of L2 (§7.3–§7.9, §7.13, §7.16, §9, §10), each skipped unless
 * advertised: result shapes, `-32005` for unadvertised options, compact vectors, progress tokens.
 */
import { isObject } from '../../protocol/json.ts';
import type { Probe } from '../probe.ts';
import type { CheckDef, Verdict } from '../types.ts';
import { all, described, expectError, fail, isFiniteNumber, isInt, pass, skip } from '../verdicts.ts';
import { hitsOf } from './common.ts';

type Check = CheckDef<Probe>;

const INPUTS = ['a quokka in the valley', 'lighthouses of the coast'];

function denseVectors(result: Record<string, unknown> | undefined, count: number, dimension: number | undefined): string | undefined {
  const vs = result?.vectors;
  if (!Array.isArray(vs)) return 'no vectors array';
  if (vs.length !== count) return `${vs.length} vectors for ${count} inputs`;
  for (const [i, v] of vs.entries()) {
    if (!Array.isArray(v) || !v.every(isFiniteNumber)) return `vector ${i} is not an array of numbers (no encoding was requested)`;
    if (dimension !== undefined && v.length !== dimension) return `vector ${i} has ${v.length} components, not the advertised dimension ${dimension}`;
  }
  if (result?.encoding !== undefined && result.encoding !== 'json') return `encoding ${JSON.stringify(result.encoding)} was used though none was requested`;
  return undefined;
}

/** Bytes of a standard base64 string, or -1 when it is not one. */
function base64Bytes(s: unknown): number {
  if (typeof s !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return -1;
  return (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
}

export const methodChecks: Check[] = [
  {
    id: 'embed-vectors',
    level: 'L2',
    section: '7.3',
    sentence: '`embed`: Result `{ "vectors": [[float]] }`, one vector per input in the same order. (§7.3.1: the server MUST NOT use an encoding the client did not request.)',
    async run(p) {
      const e = p.caps.embed;
      if (!e) return skip('embed not advertised');
      const a = await p.call('embed', { inputs: INPUTS }, { retryUnavailable: true });
      const bad = a.result ? denseVectors(a.result, INPUTS.length, e.dimension) : described(a);
      return bad ? fail(`embed of 2 inputs: ${bad}`) : pass(`2 vectors of dimension ${e.dimension}`);
    },
  },
  {
    id: 'embed-texts-synonym',
    level: 'L2',
    section: '7.3',
    sentence: 'For backward compatibility a server MUST also accept the legacy field name `texts` as a synonym for `inputs`.',
    async run(p) {
      const e = p.caps.embed;
      if (!e) return skip('embed not advertised');
      const a = await p.call('embed', { texts: INPUTS }, { retryUnavailable: true });
      const bad = a.result ? denseVectors(a.result, INPUTS.length, e.dimension) : described(a);
      return bad ? fail(`embed with texts: ${bad}`) : pass('texts accepted');
    },
  },
  {
    id: 'embed-encoding',
    level: 'L2',
    section: '7.3.1',
    sentence: 'The server MUST echo the encoding it actually used in the result … With a binary encoding, `dimension` MUST be present, each decoded blob MUST be exactly `dimension × 4` bytes. Requesting an unadvertised encoding is `-32005`.',
    async run(p) {
      const e = p.caps.embed;
      if (!e) return skip('embed not advertised');
      if (!e.encodings?.includes('f32-base64')) {
        return expectError(await p.call('embed', { inputs: INPUTS, encoding: 'f32-base64' }), [-32005], 'encoding f32-base64 (not advertised)');
      }
      const a = await p.call('embed', { inputs: INPUTS, encoding: 'f32-base64' }, { retryUnavailable: true });
      const r = a.result;
      if (!r) return fail(`embed with encoding f32-base64: ${described(a)}`);
      if (r.encoding !== 'f32-base64') return fail(`the result's encoding is ${JSON.stringify(r.encoding)}, not the one used`);
      if (!isInt(r.dimension)) return fail('no integer dimension beside a binary encoding');
      const vs = Array.isArray(r.vectors) ? r.vectors : [];
      const wrong = vs.findIndex((v) => base64Bytes(v) !== (r.dimension as number) * 4);
      if (vs.length !== INPUTS.length) return fail(`${vs.length} blobs for ${INPUTS.length} inputs`);
      return wrong >= 0 ? fail(`blob ${wrong} is not ${(r.dimension as number) * 4} bytes of base64`) : pass(`2 blobs of ${(r.dimension as number) * 4} bytes`);
    },
  },
  {
    id: 'sparse-embed',
    level: 'L2',
    section: '7.4',
    sentence: '`embed/sparse`: Result `{ "sparse": [ { "indices": [int], "values": [float] } ] }` — each entry is a sparse vector over the model vocabulary.',
    async run(p) {
      if (!p.caps.sparseEmbed) return skip('sparseEmbed not advertised');
      const a = await p.call('embed/sparse', { texts: INPUTS }, { retryUnavailable: true });
      const s = a.result?.sparse;
      if (!Array.isArray(s) || s.length !== INPUTS.length) return fail(`embed/sparse of 2 texts: ${described(a)}`);
      const bad = s.findIndex((v) => !isObject(v) || !Array.isArray(v.indices) || !Array.isArray(v.values) || v.indices.length !== v.values.length || !v.indices.every(isInt) || !v.values.every(isFiniteNumber));
      return bad >= 0 ? fail(`entry ${bad} is not {indices: [int], values: [float]} of equal lengths`) : pass('2 sparse vectors');
    },
  },
  {
    id: 'multi-embed',
    level: 'L2',
    section: '7.5',
    sentence: '`embed/multi`: Result `{ "matrices": [ [[float]] ], "dimension": int }` — each input yields a matrix of token- or patch-level embeddings.',
    async run(p) {
      const m = p.caps.multiVector;
      if (!m) return skip('multiVector not advertised');
      const a = await p.call('embed/multi', { inputs: INPUTS }, { retryUnavailable: true });
      const ms = a.result?.matrices;
      if (!Array.isArray(ms) || ms.length !== INPUTS.length) return fail(`embed/multi of 2 inputs: ${described(a)}`);
      const dim = a.result?.dimension;
      if (!isInt(dim)) return fail('no integer dimension');
      const bad = ms.findIndex((mat) => !Array.isArray(mat) || !mat.every((row) => Array.isArray(row) && row.length === dim && row.every(isFiniteNumber)));
      return bad >= 0 ? fail(`matrix ${bad} is not rows of ${dim} numbers`) : pass(`2 matrices of dimension ${dim}`);
    },
  },
  {
    id: 'rerank-scores',
    level: 'L2',
    section: '7.6',
    sentence: '`scores[i]` corresponds to `passages[i]`; higher is more relevant. Optional `order` gives the indices sorted best-first.',
    async run(p) {
      if (!p.caps.rerank) return skip('rerank not advertised');
      const passages = ['the quokka lives in the valley', 'a lighthouse on the coast', 'quokkas are small marsupials'];
      const a = await p.call('rerank', { query: 'quokka', passages }, { retryUnavailable: true });
      const scores = a.result?.scores;
      if (!Array.isArray(scores) || scores.length !== passages.length || !scores.every(isFiniteNumber)) return fail(`rerank of 3 passages: expected 3 scores, got ${described(a)}`);
      const order = a.result?.order;
      if (order === undefined) return pass('3 scores');
      if (!Array.isArray(order) || [...order].sort().join() !== '0,1,2') return fail(`order ${JSON.stringify(order)} is not a permutation of 0..2`);
      const sorted = order.every((o, i) => i === 0 || (scores[o] as number) <= (scores[order[i - 1] as number] as number));
      return sorted ? pass('3 scores and a best-first order') : fail(`order ${JSON.stringify(order)} is not best-first for scores ${JSON.stringify(scores)}`);
    },
  },
  {
    id: 'rerank-unadvertised-method',
    level: 'L2',
    section: '7.6',
    sentence: '`method` MUST be in `rerank.methods`. (§12: `-32005` when a requested option value is not in the advertised set.)',
    async run(p) {
      const r = p.caps.rerank;
      if (!r) return skip('rerank not advertised');
      const method = (['cross-encoder', 'colbert', 'llm'] as const).find((m) => !r.methods?.includes(m));
      if (!method) return skip('every rerank method is advertised');
      return expectError(await p.call('rerank', { query: 'quokka', passages: ['a', 'b'], method }), [-32005], `rerank method ${method} (not advertised)`);
    },
  },
  {
    id: 'transform-methods',
    level: 'L2',
    section: '7.8',
    sentence: '`query/transform`: Result `{ "queries": ["…", …], "hypothetical"?: "…" }` — `hyde` returns a hypothetical document in `hypothetical`.',
    async run(p) {
      const t = p.caps.transform;
      if (!t) return skip('transform not advertised');
      const out: Verdict[] = [];
      for (const method of t.methods ?? []) {
        const a = await p.call('query/transform', { query: 'quokka zephyrine', method, n: 2 }, { retryUnavailable: true });
        const q = a.result?.queries;
        const ok = (Array.isArray(q) && q.every((x) => typeof x === 'string')) || (method === 'hyde' && typeof a.result?.hypothetical === 'string');
        out.push(ok ? pass(`${method}: ${Array.isArray(q) ? q.length : 0} queries`) : fail(`${method}: expected queries of strings, got ${described(a)}`));
      }
      const missing = ['rewrite', 'hyde', 'multi-query', 'decompose', 'step-back'].find((m) => !t.methods?.includes(m));
      if (missing) out.push(expectError(await p.call('query/transform', { query: 'q', method: missing }), [-32005], `method ${missing} (not advertised)`));
      return all(out);
    },
  },
  {
    id: 'graph-op',
    level: 'L2',
    section: '7.9',
    sentence: '`op` MUST be in `graph.ops`.',
    async run(p) {
      const g = p.caps.graph;
      if (!g) return skip('graph not advertised');
      const op = ['local', 'global', 'drift', 'communities', 'neighbors'].find((o) => !g.ops?.includes(o));
      if (!op) return skip('every graph op is advertised');
      return expectError(await p.call('graph', { op, query: 'quokka' }), [-32005], `op ${op} (not advertised)`);
    },
  },
  {
    id: 'catalog-list',
    level: 'L2',
    section: '7.13',
    sentence: 'Each entry mirrors an `initialize.result` (identity + capabilities) plus an optional `endpoint` a client may connect to directly.',
    async run(p) {
      if (!p.caps.catalog) return skip('catalog not advertised');
      const a = await p.call('catalog/list', {});
      const es = a.result?.engines;
      if (!Array.isArray(es)) return fail(`catalog/list: ${described(a)}`);
      const bad = es.findIndex((e) => !isObject(e) || typeof e.id !== 'string' || !isObject(e.server) || !isObject(e.capabilities));
      return bad >= 0 ? fail(`engine ${bad} lacks id, server or capabilities`) : pass(`${es.length} engines`);
    },
  },
  {
    id: 'feedback-accepted',
    level: 'L2',
    section: '7.16',
    sentence: '`feedback`: Result `{ "accepted": int }` — how many signals the server recorded.',
    async run(p) {
      if (!p.caps.feedback) return skip('feedback not advertised');
      const a = await p.call('feedback', { query: 'quokka', signals: [{ hitId: 'rcp-conformance-probe:1', helpful: true }] });
      return isInt(a.result?.accepted) ? pass(`accepted ${String(a.result?.accepted)}`) : fail(`feedback: ${described(a)}`);
    },
  },
  {
    id: 'progress-token-echoed',
    level: 'L2',
    section: '9',
    sentence: 'The server MUST echo [the `progressToken`] verbatim in every `notifications/progress` frame for that request. `progress` is `0.0–1.0`. The final JSON-RPC response with the request `id` still follows.',
    async run(p) {
      if (!p.caps.streaming) return skip('streaming not advertised');
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const token = `rcp-conformance-progress-${p.freshId()}`;
      p.state.progressTokens.add(token);
      const a = await p.call('retrieve', { query: p.state.sample?.query ?? 'test', k: 3, _meta: { progressToken: token } }, { retryUnavailable: true });
      if (!hitsOf(a.result)) return fail(`retrieve with a progressToken: ${described(a)}`);
      const progress = a.notifications.filter((n) => n.method === 'notifications/progress');
      const bad = progress.find((n) => !isObject(n.params) || n.params.progressToken !== token || (n.params.progress !== undefined && !(isFiniteNumber(n.params.progress) && n.params.progress >= 0 && n.params.progress <= 1)));
      if (bad) return fail(`progress frame ${JSON.stringify(bad).slice(0, 200)} does not carry token ${token} with progress in [0, 1]`);
      return pass(progress.length ? `${progress.length} progress frames with the token, then the response` : 'no progress frames (they are advisory), then the response');
    },
  },
  {
    id: 'pagination-cursor',
    level: 'L2',
    section: '10',
    sentence: 'To fetch the next page, the client repeats the request with `cursor` set to that value. A missing/empty `nextCursor` means no more results.',
    async run(p) {
      if (!p.caps.pagination) return skip('pagination not advertised');
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const params = { query: p.state.sample?.query ?? 'test', k: 1 };
      const first = await p.call('retrieve', params);
      if (!hitsOf(first.result)) return fail(described(first));
      const cursor = first.result?.nextCursor;
      if (cursor === undefined || cursor === '') return skip('no nextCursor on a one-hit page');
      const next = await p.call('retrieve', { ...params, cursor });
      return hitsOf(next.result) ? pass('the next page answered') : fail(`retrieve with the returned cursor: ${described(next)}`);
    },
  },
];
