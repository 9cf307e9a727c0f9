/**
 * `retrieve` (§7.7, §8, §4.6, §4.8, §12, §14.2): hits, counts, scores, options and filters. Skipped
 * when `retrieve` is not advertised. With a writable index the run has added its probe documents
 * first, so the results are not empty; otherwise a few generic queries are tried.
 */
import { isObject } from '../../protocol/json.ts';
import type { Capabilities } from '../../protocol/types.ts';
import type { Answer, Probe } from '../probe.ts';
import type { CheckDef, Verdict } from '../types.ts';
import { all, described, expectError, fail, isFiniteNumber, pass, skip } from '../verdicts.ts';
import { hitsOf, PROBE_QUERY } from './common.ts';

type Check = CheckDef<Probe>;

const MODES = ['dense', 'sparse', 'hybrid'] as const;
const FUSIONS = ['rrf', 'weighted', 'convex'] as const;
const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'exists'] as const;

/** A retrieve whose hits' scores are remembered for the scoreFloor check. */
async function retrieve(p: Probe, params: Record<string, unknown>, retryUnavailable = false): Promise<{ a: Answer; hits?: Record<string, unknown>[] }> {
  const a = await p.call('retrieve', params, { retryUnavailable });
  const hits = hitsOf(a.result);
  for (const h of hits ?? []) if (isFiniteNumber(h.score)) p.state.scores.push(h.score);
  return { a, hits };
}

const needsRetrieve = (p: Probe): Verdict | undefined => (p.caps.retrieve ? undefined : skip('retrieve not advertised'));

/** The sample query: the probe documents' words, or the first generic query with two hits or more. */
async function sample(p: Probe): Promise<{ query: string; hits: Record<string, unknown>[] } | Verdict> {
  if (p.state.sample) return p.state.sample;
  const queries = p.state.written.length ? [PROBE_QUERY] : ['test', 'information', 'the system'];
  let last: Answer | undefined;
  for (const query of queries) {
    const { a, hits } = await retrieve(p, { query, k: 5 }, true);
    last = a;
    if (!hits) return fail(`retrieve "${query}": expected a hits array, got ${described(a)}`);
    if (hits.length >= 2 || query === queries[queries.length - 1]) return (p.state.sample = { query, hits });
  }
  return fail(`retrieve: ${last ? described(last) : 'no answer'}`);
}

function hitShape(h: Record<string, unknown>, i: number): string | undefined {
  if (typeof h.id !== 'string' && typeof h.id !== 'number') return `hit ${i} id ${JSON.stringify(h.id)} is not a string or number`;
  if (!isFiniteNumber(h.score)) return `hit ${i} score ${JSON.stringify(h.score)} is not a number`;
  return undefined;
}

const isVerdict = (v: unknown): v is Verdict => isObject(v) && typeof v.status === 'string';

/** A retrieve option value this server did not advertise, for the -32005 checks. */
function unadvertised<T extends string>(offered: readonly T[] | undefined, known: readonly T[]): T | undefined {
  return offered ? known.find((m) => !offered.includes(m)) : undefined;
}

function filterFields(caps: Capabilities): { names: string[]; types: Record<string, string> } {
  const f = caps.filter?.fields;
  if (Array.isArray(f)) return { names: f, types: {} };
  if (isObject(f)) return { names: Object.keys(f), types: f as Record<string, string> };
  return { names: [], types: {} };
}

export const retrieveChecks: Check[] = [
  {
    id: 'retrieve-hits',
    level: 'L1',
    section: '7.7',
    sentence: '`retrieve` runs the server\'s retrieval pipeline and returns ranked hits: `{ "hits": [ Hit, … ] }`, each Hit with an `id` (string or number) and a `score` (float).',
    async run(p) {
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      const bad = s.hits.map(hitShape).find(Boolean);
      return bad ? fail(bad) : pass(`"${s.query}": ${s.hits.length} hits`);
    },
  },
  {
    id: 'retrieve-k-ceiling',
    level: 'L1',
    section: '7.7',
    sentence: 'The server MUST NOT return more than `k` hits (fewer is allowed when the corpus or `minScore` yields fewer).',
    async run(p) {
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      const out: Verdict[] = [];
      for (const k of [1, 3]) {
        const { a, hits } = await retrieve(p, { query: s.query, k });
        out.push(!hits ? fail(`k=${k}: ${described(a)}`) : hits.length <= k ? pass(`k=${k}: ${hits.length}`) : fail(`asked k=${k}, got ${hits.length} hits`));
      }
      return all(out);
    },
  },
  {
    id: 'retrieve-scores-descending',
    level: 'L1',
    section: '14.2',
    sentence: 'An L1 server SHOULD … populate `Hit.score` consistently (higher = more relevant). (§4.6: scores are monotonic within a single response.)',
    async run(p) {
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      const scores = s.hits.map((h) => h.score as number);
      const at = scores.findIndex((x, i) => i > 0 && x > scores[i - 1]);
      return at < 0 ? pass(`${scores.length} scores non-increasing`) : fail(`score ${scores[at]} at rank ${at + 1} is above ${scores[at - 1]} at rank ${at}`);
    },
  },
  {
    id: 'retrieve-ids-unique',
    level: 'L1',
    section: '7.7',
    sentence: '`id` is in the server\'s identifier space; clients fusing across servers key on the stringified `id` (so ids within one result are distinct).',
    async run(p) {
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      const ids = s.hits.map((h) => String(h.id));
      const dup = ids.find((id, i) => ids.indexOf(id) !== i);
      return dup === undefined ? pass(`${ids.length} distinct ids`) : fail(`id ${dup} appears twice`);
    },
  },
  {
    id: 'retrieve-maxk-clamped',
    level: 'L1',
    section: '12',
    sentence: 'A value that is well-formed but larger than an advertised limit (`k > maxK`) is not an error at all: the server MUST clamp it. (§7.7: "A server MUST clamp each value to `retrieve.maxK`".)',
    async run(p) {
      const maxK = p.caps.retrieve?.maxK;
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      if (typeof maxK !== 'number' || maxK < 1) return skip('no retrieve.maxK advertised');
      const { a, hits } = await retrieve(p, { query: p.state.sample?.query ?? 'test', k: maxK + 1000 });
      if (!hits) return fail(`k=${maxK + 1000} (maxK ${maxK}): ${described(a)}`);
      if (hits.length > maxK) return fail(`k=${maxK + 1000}: ${hits.length} hits, above maxK ${maxK}`);
      // candidateK too: "A server MUST clamp each value to retrieve.maxK" (§7.7).
      const wide = await retrieve(p, { query: p.state.sample?.query ?? 'test', k: 3, candidateK: maxK + 1000 });
      if (!wide.hits) return fail(`candidateK=${maxK + 1000} (maxK ${maxK}): ${described(wide.a)}`);
      return pass(`k=${maxK + 1000}: ${hits.length} hits ≤ maxK ${maxK}; candidateK=${maxK + 1000} answered`);
    },
  },
  {
    id: 'retrieve-invalid-k',
    level: 'L1',
    section: '12',
    sentence: 'Only a value that is structurally invalid (`k` negative, `k` non-integer) is `-32602`. (§4.6: integers MUST NOT be sent as strings.)',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const out: Verdict[] = [];
      for (const k of [-5, 1.5, '3']) out.push(expectError(await p.call('retrieve', { query: 'test', k }), [-32602], `k=${JSON.stringify(k)}`));
      return all(out);
    },
  },
  {
    id: 'retrieve-funnel',
    level: 'L1',
    section: '7.7',
    sentence: 'The three result-size knobs form a funnel and MUST satisfy `candidateK ≥ rerank.topN ≥ k`.',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 10, candidateK: 2 }), [-32602], 'candidateK 2 < k 10');
    },
  },
  {
    id: 'retrieve-modes',
    level: 'L1',
    section: '6.1',
    sentence: '`modes` — the retrieval modes the server supports. (§13.2: an advertised capability works for the session, or fails a call with `-32010`, which is retried.)',
    async run(p) {
      const modes = p.caps.retrieve?.modes;
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      if (!modes?.length) return skip('no retrieve.modes advertised');
      const out: Verdict[] = [];
      for (const mode of modes) {
        const { a, hits } = await retrieve(p, { query: p.state.sample?.query ?? 'test', k: 3, mode }, true);
        out.push(hits ? pass(`${mode}: ${hits.length} hits`) : fail(`mode ${mode} is advertised but answered ${described(a)}`));
      }
      return all(out);
    },
  },
  {
    id: 'retrieve-unadvertised-mode',
    level: 'L1',
    section: '7.7',
    sentence: 'If a client requests an unsupported `mode`/`method`, the server MUST return `-32005` (`OptionUnsupported`) rather than silently degrade — unless the client set `"strict": false`.',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const mode = unadvertised(p.caps.retrieve.modes, MODES);
      if (!mode) return skip(p.caps.retrieve.modes ? 'every mode is advertised' : 'no retrieve.modes advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 1, mode }), [-32005], `mode ${mode} (not advertised)`);
    },
  },
  {
    id: 'enum-case-sensitive',
    level: 'L1',
    section: '4.6',
    sentence: 'Enums are lower-case strings exactly as written in this document (`"cross-encoder"`, `"hybrid"`); comparison is case-sensitive.',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const mode = p.caps.retrieve.modes?.[0] ?? 'sparse';
      return expectError(await p.call('retrieve', { query: 'test', k: 1, mode: mode.toUpperCase() }), [-32005, -32602], `mode ${mode.toUpperCase()}`);
    },
  },
  {
    id: 'retrieve-unadvertised-fusion',
    level: 'L1',
    section: '7.7',
    sentence: 'The server MUST honour options only within its capabilities … If a client requests an unsupported `mode`/`method`, the server MUST return `-32005`.',
    async run(p) {
      const r = p.caps.retrieve;
      if (!r?.modes?.includes('hybrid')) return skip('hybrid not advertised');
      const method = unadvertised(r.fusion, FUSIONS);
      if (!method) return skip(r.fusion ? 'every fusion method is advertised' : 'no retrieve.fusion advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 1, mode: 'hybrid', fusion: { method } }), [-32005], `fusion ${method} (not advertised)`);
    },
  },
  {
    id: 'retrieve-min-score',
    level: 'L1',
    section: '14.2',
    sentence: 'An L1 server SHOULD … honour `k`/`minScore`. (§7.7: `minScore` is interpreted in the server\'s own scale.)',
    async run(p) {
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      // One explicit mode for both requests: a default mode may be served differently from one call to the next.
      const modes = p.caps.retrieve?.modes ?? [];
      const mode = modes.includes('sparse') ? 'sparse' : modes[0];
      const base = await retrieve(p, { query: s.query, k: 5, ...(mode ? { mode } : {}) }, true);
      if (!base.hits) return fail(described(base.a));
      const scores = base.hits.map((h) => h.score as number);
      if (scores.length < 2 || scores[0] === scores[scores.length - 1]) return skip('needs two hits with different scores');
      const min = (scores[0] + scores[scores.length - 1]) / 2;
      const { a, hits } = await retrieve(p, { query: s.query, k: 5, minScore: min, ...(mode ? { mode } : {}) });
      if (!hits) return fail(`minScore ${min}: ${described(a)}`);
      const below = hits.find((h) => (h.score as number) < min);
      if (below) return fail(`minScore ${min}: hit ${String(below.id)} scores ${String(below.score)}`);
      return hits.length >= 1 ? pass(`minScore ${min.toPrecision(4)}: ${hits.length} of ${scores.length} hits kept`) : fail(`minScore ${min}: the top hit (score ${scores[0]}) was dropped`);
    },
  },
  {
    id: 'retrieve-null-as-absent',
    level: 'L1',
    section: '4.6',
    sentence: 'An explicit `null` is only meaningful where a schema lists `null` as a permitted type; elsewhere a peer MUST treat `null` as absent.',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const { a, hits } = await retrieve(p, { query: p.state.sample?.query ?? 'test', k: 3, minScore: null, mode: null, filter: null });
      return hits ? pass('minScore, mode and filter set to null: answered as if absent') : fail(`minScore/mode/filter null: ${described(a)}`);
    },
  },
  {
    id: 'retrieve-unknown-fields',
    level: 'L1',
    section: '4.6',
    sentence: 'Unknown fields in any object MUST be ignored by the receiver, never rejected (forward compatibility).',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const { a, hits } = await retrieve(p, { query: 'test', k: 2, 'x-conformance-option': { deep: true }, _meta: { 'x-conformance': 1 } });
      return hits ? pass('an unknown param and an unknown _meta key were ignored') : fail(`retrieve with an unknown field: ${described(a)}`);
    },
  },
  {
    id: 'retrieve-unicode',
    level: 'L1',
    section: '4.6',
    sentence: 'Strings are UTF-8. Servers MUST accept the full Unicode range in `query`/`text` and MUST NOT assume ASCII.',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const { a, hits } = await retrieve(p, { query: '東京 العربية émigré 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🦘', k: 3 });
      return hits ? pass(`CJK, Arabic, accents, astral-plane letters and an emoji: ${hits.length} hits`) : fail(`a non-ASCII query: ${described(a)}`);
    },
  },
  {
    id: 'retrieve-seed-accepted',
    level: 'L1',
    section: '7.7.1',
    sentence: 'A server that honours `seed` MUST return identical results for identical `(query, params, seed, indexVersion)`; one that cannot MUST ignore it (never error).',
    async run(p) {
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const { a, hits } = await retrieve(p, { query: 'test', k: 2, seed: 12345 });
      return hits ? pass('seed accepted') : fail(`seed 12345: ${described(a)}`);
    },
  },
  {
    id: 'retrieve-content-modality',
    level: 'L1',
    section: '4.8',
    sentence: 'Servers MUST reject a block whose `type`/`mimeType` is outside the modalities they advertised with `-32005` (`OptionUnsupported`).',
    async run(p) {
      const r = p.caps.retrieve as (Capabilities['retrieve'] & { modalities?: string[] }) | undefined;
      if (!r) return skip('retrieve not advertised');
      if ((r.modalities ?? ['text']).includes('image')) return skip('image is an advertised modality');
      const image = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
      return expectError(await p.call('retrieve', { query: image, k: 1 }), [-32005], 'an image Content block as query (modalities: text)');
    },
  },
  {
    id: 'retrieve-content-uri',
    level: 'L1',
    section: '4.8',
    sentence: 'Servers … MUST treat a `uri` they will not or cannot fetch as `-32602` rather than silently ignoring it.',
    async run(p) {
      const r = p.caps.retrieve as (Capabilities['retrieve'] & { modalities?: string[] }) | undefined;
      if (!r) return skip('retrieve not advertised');
      if (!(r.modalities ?? []).includes('image')) return skip('no image modality advertised (a text-only server need not accept blocks)');
      const image = { type: 'image', mimeType: 'image/png', uri: 'https://rcp-conformance.invalid/page.png' };
      return expectError(await p.call('retrieve', { query: image, k: 1 }), [-32602], 'an image block whose uri cannot be fetched (.invalid)');
    },
  },
  {
    id: 'citations-present',
    level: 'L1',
    section: '6',
    sentence: '`citations` `{}`: Hits carry `citation`/`trust` fields.',
    async run(p) {
      if (!p.caps.citations) return skip('citations not advertised');
      const s = needsRetrieve(p) ?? (await sample(p));
      if (isVerdict(s)) return s;
      if (!s.hits.length) return skip('no hits to look at');
      const bare = s.hits.find((h) => !isObject(h.citation) && !isObject(h.trust));
      return bare ? fail(`hit ${String(bare.id)} carries neither citation nor trust`) : pass(`${s.hits.length} hits carry citation/trust`);
    },
  },
];

export const filterChecks: Check[] = [
  {
    id: 'filter-unadvertised-field',
    level: 'L1',
    section: '8',
    sentence: 'Servers MUST reject filters referencing unadvertised fields with `-32602`.',
    async run(p) {
      if (!p.caps.retrieve || !p.caps.filter) return skip('filter not advertised');
      const field = 'x-conformance-no-such-field';
      return expectError(await p.call('retrieve', { query: 'test', k: 1, filter: { field, op: 'eq', value: 'a' } }), [-32602], `filter on ${field}`);
    },
  },
  {
    id: 'filter-unadvertised-operator',
    level: 'L1',
    section: '8',
    sentence: 'A server … MUST reject an operator outside its advertised `filter.operators` with `-32005`.',
    async run(p) {
      const f = p.caps.filter;
      if (!p.caps.retrieve || !f) return skip('filter not advertised');
      const op = unadvertised(f.operators, OPERATORS);
      const field = filterFields(p.caps).names[0];
      if (!op) return skip(f.operators ? 'every operator is advertised' : 'no filter.operators advertised');
      if (!field) return skip('no filter field advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 1, filter: { field, op, value: op === 'exists' ? true : op === 'in' || op === 'nin' ? ['a'] : 'a' } }), [-32005], `operator ${op} (not advertised)`);
    },
  },
  {
    id: 'filter-empty-combinator',
    level: 'L1',
    section: '8',
    sentence: 'Boolean combinators `and`/`or`/`not` nest arbitrarily; an empty `and`/`or` array is `-32602`.',
    async run(p) {
      if (!p.caps.retrieve || !p.caps.filter) return skip('filter not advertised');
      return all([
        expectError(await p.call('retrieve', { query: 'test', k: 1, filter: { and: [] } }), [-32602], 'filter {and: []}'),
        expectError(await p.call('retrieve', { query: 'test', k: 1, filter: { or: [] } }), [-32602], 'filter {or: []}'),
      ]);
    },
  },
  {
    id: 'filter-type-mismatch',
    level: 'L1',
    section: '8',
    sentence: "A server MUST return `-32602` (with `error.data.field`) if a value's JSON type is incompatible with the field type or the operator is not allowed for that field.",
    async run(p) {
      if (!p.caps.retrieve || !p.caps.filter) return skip('filter not advertised');
      const { types } = filterFields(p.caps);
      const numeric = Object.entries(types).find(([, t]) => t === 'int' || t === 'float');
      if (!numeric) return skip('no int or float filter field advertised');
      const ops = p.caps.filter.operators;
      if (ops && !ops.includes('gte')) return skip('gte not advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 1, filter: { field: numeric[0], op: 'gte', value: 'not-a-number' } }), [-32602], `${numeric[0]} (${numeric[1]}) gte a string`);
    },
  },
  {
    id: 'filter-valid',
    level: 'L1',
    section: '8',
    sentence: 'When `filter` is advertised, `retrieve.filter` accepts a small boolean tree. Servers advertise allowed `fields` and `operators`.',
    async run(p) {
      if (!p.caps.retrieve || !p.caps.filter) return skip('filter not advertised');
      const field = filterFields(p.caps).names[0];
      if (!field) return skip('no filter field advertised');
      const ops = p.caps.filter.operators;
      if (ops && !ops.includes('exists')) return skip('exists not advertised');
      const { a, hits } = await retrieve(p, { query: 'test', k: 3, filter: { field, op: 'exists', value: true } });
      return hits ? pass(`{${field} exists true}: ${hits.length} hits`) : fail(`a valid filter on ${field}: ${described(a)}`);
    },
  },
];

export const retrieveL2Checks: Check[] = [
  {
    id: 'retrieve-unadvertised-rerank',
    level: 'L2',
    section: '7.7',
    sentence: 'If a client requests an unsupported `mode`/`method`, the server MUST return `-32005` (`OptionUnsupported`).',
    async run(p) {
      const r = p.caps.retrieve;
      if (!r?.rerankBuiltin || !p.caps.rerank) return skip('no built-in rerank advertised');
      const method = unadvertised(p.caps.rerank.methods, ['cross-encoder', 'colbert', 'llm'] as const);
      if (!method) return skip('every rerank method is advertised');
      return expectError(await p.call('retrieve', { query: 'test', k: 1, rerank: { method } }), [-32005], `rerank ${method} (not advertised)`);
    },
  },
  {
    id: 'retrieve-deterministic',
    level: 'L2',
    section: '7.7.1',
    sentence: 'A server that honours `seed` MUST return identical results for identical `(query, params, seed, indexVersion)`.',
    async run(p) {
      if (!p.caps.retrieve?.deterministic) return skip('retrieve.deterministic not advertised');
      const params = { query: p.state.sample?.query ?? 'test', k: 5, seed: 7 };
      const key = (hs: Record<string, unknown>[]) => JSON.stringify(hs.map((h) => [h.id, h.score]));
      // The MUST holds for the same indexVersion: a pair that straddles a change of the index (a
      // server still embedding in the background) is asked again.
      for (let attempt = 1; ; attempt++) {
        const one = await retrieve(p, params);
        const two = await retrieve(p, params);
        if (!one.hits || !two.hits) return fail(`retrieve with seed: ${described(one.hits ? two.a : one.a)}`);
        const v1 = one.a.result?.indexVersion;
        const v2 = two.a.result?.indexVersion;
        if (v1 !== undefined && JSON.stringify(v1) !== JSON.stringify(v2)) {
          if (attempt < 5) continue;
          return skip(`the index version changed between every pair of requests (${JSON.stringify(v1)} → ${JSON.stringify(v2)})`);
        }
        return key(one.hits) === key(two.hits) ? pass(`${one.hits.length} identical hits twice${v1 !== undefined ? ` at indexVersion ${JSON.stringify(v1)}` : ''}`) : fail(`the same request with the same seed returned different hits${v1 !== undefined ? ` at the same indexVersion ${JSON.stringify(v1)}` : ''}`);
      }
    },
  },
  {
    id: 'retrieve-snapshot-pin',
    level: 'L2',
    section: '7.7.1',
    sentence:
      'When a client pins a specific `indexVersion`, [the server] MUST either serve that snapshot or fail with `-32010` (`BackendUnavailable`) if it has been garbage-collected — never silently serve a different one.',
    async run(p) {
      if (!p.caps.retrieve?.snapshots) return skip('retrieve.snapshots not advertised');
      const { a, hits } = await retrieve(p, { query: 'test', k: 1 });
      if (!hits) return fail(described(a));
      const v = a.result?.indexVersion;
      if (v === undefined) return fail('a server that supports snapshots echoes the served snapshot in the result: no indexVersion');
      const pinned = await retrieve(p, { query: 'test', k: 1, indexVersion: v });
      if (!pinned.hits || JSON.stringify(pinned.a.result?.indexVersion) !== JSON.stringify(v)) return fail(`pinned to the current ${JSON.stringify(v)}: ${described(pinned.a)}`);
      return all([pass(`pinned ${JSON.stringify(v)} served`), expectError(await p.call('retrieve', { query: 'test', k: 1, indexVersion: 'rcp-conformance-no-such-snapshot' }), [-32010, -32016], 'a snapshot that never existed')]);
    },
  },
];
