/**
 * Checks over everything the run received (§4, §4.6, §5, §7.1, §9, §12, §13.1, §6.1, §14): they
 * send nothing, so they run even after the endpoint went away, and judge every frame at once.
 */
import { isObject } from '../../protocol/json.ts';
import { ErrorCode } from '../../protocol/codes.ts';
import { conformanceOf } from '../../protocol/conformance.ts';
import type { Probe, Received } from '../probe.ts';
import type { CheckDef } from '../types.ts';
import { tryParse } from '../wire.ts';
import { fail, isInt, pass, skip } from '../verdicts.ts';

type Check = CheckDef<Probe>;

/** Every frame of the run: those received in exchanges and the strays. */
function everything(p: Probe): Received[] {
  return [...p.state.received, ...p.state.wire.strays().map((text) => ({ text, check: '(outside any exchange)' }))];
}

/** Each JSON-RPC message of a frame (a batch answer holds several). */
function messages(r: Received): unknown[] {
  const v = tryParse(r.text);
  if (!v.ok) return [];
  return Array.isArray(v.value) ? v.value : [v.value];
}

/** What is wrong with one message of a server, per JSON-RPC 2.0 and §4; undefined when nothing. */
function malformed(m: unknown): string | undefined {
  if (!isObject(m)) return 'not a JSON object';
  if (m.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(m.jsonrpc)}`;
  if (typeof m.method === 'string') return 'id' in m && m.id !== undefined ? 'a request from the server' : undefined;
  if (!('id' in m)) return 'neither a notification nor a response';
  if (m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') return `id ${JSON.stringify(m.id)}`;
  const hasResult = 'result' in m, hasError = 'error' in m;
  if (hasResult === hasError) return hasResult ? 'both result and error' : 'neither result nor error';
  if (hasError) {
    const e = m.error;
    if (!isObject(e) || !isInt(e.code) || typeof e.message !== 'string') return `error ${JSON.stringify(e).slice(0, 120)} lacks an integer code and a string message`;
  }
  return undefined;
}

const KNOWN_RCP_CODES = new Set<number>(Object.values(ErrorCode));

/** Integer fields of §4.6 wherever they appear in a result. */
const INTEGER_PATHS: ((r: Record<string, unknown>) => [string, unknown][])[] = [
  (r) => [['protocolVersion', r.protocolVersion]],
  (r) => {
    const c = isObject(r.capabilities) ? r.capabilities : {};
    const get = (k: string, f: string): [string, unknown] => [`capabilities.${k}.${f}`, isObject(c[k]) ? (c[k] as Record<string, unknown>)[f] : undefined];
    return [get('retrieve', 'maxK'), get('embed', 'dimension'), get('embed', 'batchLimit'), get('rerank', 'maxCandidates'), get('multiVector', 'dimension'), get('sparseEmbed', 'vocabulary'), get('catalog', 'engines')];
  },
  (r) => {
    const u = isObject(r.usage) ? r.usage : {};
    return [['usage.candidates', u.candidates], ['usage.reranked', u.reranked], ['usage.tokens', u.tokens]];
  },
  (r) => (Array.isArray(r.hits) ? r.hits : []).filter(isObject).flatMap((h, i): [string, unknown][] => [
    [`hits[${i}].chunk.index`, isObject(h.chunk) ? h.chunk.index : undefined],
    [`hits[${i}].citation.start`, isObject(h.citation) ? h.citation.start : undefined],
    [`hits[${i}].citation.end`, isObject(h.citation) ? h.citation.end : undefined],
    [`hits[${i}].citation.page`, isObject(h.citation) ? h.citation.page : undefined],
  ]),
  (r) => [['chunks', r.chunks], ['deleted', r.deleted], ['accepted', r.accepted], ['dimension', r.dimension]],
];

/** Boolean members of the capabilities (§6, §6.1, §7.7.1). */
const BOOLEAN_FIELDS: [string, string][] = [
  ['index', 'writable'], ['index', 'chunking'], ['index', 'contextual'], ['embed', 'normalized'], ['retrieve', 'mmr'], ['retrieve', 'rerankBuiltin'],
  ['retrieve', 'tokenBudget'], ['retrieve', 'confidence'], ['retrieve', 'deterministic'], ['retrieve', 'snapshots'], ['session', 'dedup'], ['memory', 'clues'],
];

export const globalChecks: Check[] = [
  {
    id: 'jsonrpc-well-formed',
    level: 'L0',
    section: '4',
    offline: true,
    sentence: 'All RCP messages are JSON-RPC 2.0 objects. The `jsonrpc` member MUST be `"2.0"`. (§14.1: return well-formed JSON-RPC 2.0 for every request; §4.6: `NaN`/`Infinity` are not JSON and MUST NOT be emitted.)',
    async run(p) {
      const all = everything(p);
      for (const r of all) {
        if (!tryParse(r.text).ok) return fail(`a frame that is not JSON (during ${r.check}): ${r.text.slice(0, 160)}`);
        for (const m of messages(r)) {
          const bad = malformed(m);
          if (bad) return fail(`${bad} (during ${r.check}): ${r.text.slice(0, 160)}`);
        }
      }
      return all.length ? pass(`${all.length} frames`) : skip('no frames received');
    },
  },
  {
    id: 'answered-once',
    level: 'L0',
    section: '13.1',
    offline: true,
    sentence: 'Every request MUST eventually be answered exactly once — with a result, an error, or `-32006` after a cancel — unless the transport dies first.',
    async run(p) {
      const seen = new Map<string, number>();
      for (const r of everything(p)) {
        for (const m of messages(r)) if (isObject(m) && !('method' in m) && m.id !== null && m.id !== undefined) seen.set(JSON.stringify(m.id), (seen.get(JSON.stringify(m.id)) ?? 0) + 1);
      }
      const twice = [...seen].find(([id, n]) => n > Math.max(1, p.state.sentIds.get(id) ?? 0));
      return twice ? fail(`id ${twice[0]} was answered ${twice[1]} times`) : pass(`${seen.size} ids, each answered once`);
    },
  },
  {
    id: 'error-codes-reserved',
    level: 'L0',
    section: '12',
    offline: true,
    sentence: 'The range `-32000..-32099` is reserved for RCP; implementers MUST NOT define custom codes there.',
    async run(p) {
      for (const r of everything(p)) {
        for (const m of messages(r)) {
          const code = isObject(m) && isObject(m.error) ? m.error.code : undefined;
          if (typeof code === 'number' && code <= -32000 && code >= -32099 && !KNOWN_RCP_CODES.has(code as never)) return fail(`error code ${code} (during ${r.check}) is not one of §12's`);
        }
      }
      return pass('every code in -32000..-32099 is one of §12');
    },
  },
  {
    id: 'integers-are-integers',
    level: 'L0',
    section: '4.6',
    offline: true,
    sentence: 'Integers (`k`, `dimension`, `topN`, vocabulary `indices`, byte offsets) are JSON numbers with no fractional part … Implementations MUST NOT emit them as strings.',
    async run(p) {
      let n = 0;
      for (const r of everything(p)) {
        for (const m of messages(r)) {
          if (!isObject(m) || !isObject(m.result)) continue;
          for (const get of INTEGER_PATHS) {
            for (const [path, v] of get(m.result)) {
              if (v === undefined) continue;
              n++;
              if (!isInt(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER) return fail(`${path} is ${JSON.stringify(v)} (during ${r.check})`);
            }
          }
        }
      }
      return n ? pass(`${n} integer fields`) : skip('no integer fields seen');
    },
  },
  {
    id: 'booleans-are-booleans',
    level: 'L0',
    section: '4.6',
    offline: true,
    sentence: 'Booleans are `true`/`false`, never `0`/`1` or `"true"`.',
    async run(p) {
      let n = 0;
      for (const r of everything(p)) {
        for (const m of messages(r)) {
          const caps = isObject(m) && isObject(m.result) && isObject(m.result.capabilities) ? m.result.capabilities : undefined;
          if (!caps) continue;
          for (const [key, field] of BOOLEAN_FIELDS) {
            const v = isObject(caps[key]) ? (caps[key] as Record<string, unknown>)[field] : undefined;
            if (v === undefined) continue;
            n++;
            if (typeof v !== 'boolean') return fail(`capabilities.${key}.${field} is ${JSON.stringify(v)} (during ${r.check})`);
          }
        }
      }
      return n ? pass(`${n} boolean capability fields`) : skip('no boolean capability fields seen');
    },
  },
  {
    id: 'no-unsolicited-progress',
    level: 'L0',
    section: '9',
    offline: true,
    sentence: 'The server MUST echo [the token] verbatim in every `notifications/progress` frame for that request and MUST NOT emit progress for a request that carried none.',
    async run(p) {
      for (const r of everything(p)) {
        for (const m of messages(r)) {
          if (!isObject(m) || m.method !== 'notifications/progress') continue;
          const token = isObject(m.params) ? m.params.progressToken : undefined;
          if (!p.state.progressTokens.has(token as never)) return fail(`progress with token ${JSON.stringify(token)}, which no request carried (during ${r.check})`);
        }
      }
      return pass(`progress only for the ${p.state.progressTokens.size} token(s) sent`);
    },
  },
  {
    id: 'no-unsolicited-log',
    level: 'L0',
    section: '7.1',
    offline: true,
    sentence: 'A server … MUST NOT emit a notification a client did not opt into via the corresponding capability or per-request handle (`_meta.progressToken`, `_meta.logLevel`). (The checker opts into neither `log` nor `_meta.logLevel`.)',
    async run(p) {
      for (const r of everything(p)) {
        for (const m of messages(r)) if (isObject(m) && m.method === 'notifications/log') return fail(`a notifications/log frame though the client never opted in (during ${r.check}): ${r.text.slice(0, 160)}`);
      }
      return pass('no log notifications');
    },
  },
  {
    id: 'score-floor',
    level: 'L1',
    section: '6.1',
    offline: true,
    sentence: '`scoreFloor` — the **theoretical minimum** of this server\'s `Hit.score`: the value the scoring function cannot go below, independent of the corpus and of the query.',
    async run(p) {
      const floor = p.caps.retrieve?.scoreFloor;
      if (typeof floor !== 'number') return skip('no scoreFloor advertised');
      const below = p.state.scores.find((s) => s < floor);
      return below === undefined ? pass(`${p.state.scores.length} scores ≥ ${floor}`) : fail(`a hit scored ${below}, below the advertised scoreFloor ${floor}`);
    },
  },
  {
    id: 'stdio-stdout-protocol-only',
    level: 'L0',
    section: '5.1',
    offline: true,
    sentence: 'stdout is protocol-only. A server MUST NOT write anything but framed JSON-RPC to stdout … a BOM MUST NOT be emitted.',
    async run(p) {
      if (p.transport !== 'stdio') return skip('stdio only');
      const bad = everything(p).find((r) => r.text.startsWith('\uFEFF') || !tryParse(r.text).ok);
      return bad ? fail(`stdout line is not a JSON-RPC message: ${JSON.stringify(bad.text.slice(0, 160))}`) : pass('every stdout line is one JSON text');
    },
  },
  {
    id: 'stdio-stderr-not-protocol',
    level: 'L0',
    section: '5.1',
    offline: true,
    sentence: '**stderr** is reserved for human-readable diagnostics and MUST NOT carry protocol messages.',
    async run(p) {
      const err = p.state.wire.stderr?.();
      if (p.transport !== 'stdio' || err === undefined) return skip('stdio only');
      const frame = err.split('\n').find((l) => {
        const v = tryParse(l.trim());
        return v.ok && isObject(v.value) && v.value.jsonrpc === '2.0';
      });
      return frame ? fail(`stderr carried a JSON-RPC message: ${frame.slice(0, 160)}`) : pass(`${err.split('\n').filter(Boolean).length} stderr lines, none a protocol message`);
    },
  },
  {
    id: 'http-errors-are-200',
    level: 'L0',
    section: '5.2',
    offline: true,
    sentence: 'A well-formed JSON-RPC response — *including* one carrying a JSON-RPC `error` — MUST be returned with HTTP `200`.',
    async run(p) {
      if (p.transport !== 'http') return skip('http only');
      let n = 0;
      for (const r of p.state.received) {
        if (!r.http || r.check === 'http-auth-before-initialize') continue;
        for (const m of messages(r)) {
          // id null: an answer to a body the server could not read, where §5.2 allows 400.
          if (!isObject(m) || 'method' in m || m.id === null || m.id === undefined) continue;
          n++;
          if (r.http.status !== 200) return fail(`HTTP ${r.http.status} carried the JSON-RPC response ${r.text.slice(0, 160)} (during ${r.check})`);
        }
      }
      return n ? pass(`${n} responses, all HTTP 200`) : skip('no responses seen');
    },
  },
  {
    id: 'http-content-type',
    level: 'L0',
    section: '5.2',
    offline: true,
    sentence: 'The response body is the JSON-RPC response with `Content-Type: application/json`.',
    async run(p) {
      if (p.transport !== 'http') return skip('http only');
      const bad = p.state.received.find((r) => r.http && r.http.contentType !== 'application/json' && !(r.http.contentType === 'text/event-stream' && r.check === 'http-sse'));
      return bad ? fail(`Content-Type ${bad.http!.contentType || '(none)'} (during ${bad.check})`) : pass('application/json');
    },
  },
];

/** Reports which level the advertised capabilities reach by §14.2/§14.3 (certification uses the same rule). */
export const surfaceChecks: Check[] = [
  {
    id: 'l1-surface',
    level: 'L1',
    section: '14.2',
    offline: true,
    sentence: 'An L1 server is L0 and additionally SHOULD implement `retrieve` with `modes:["dense","sparse","hybrid"]`, support `filter` and `citations`.',
    async run(p) {
      if (!p.state.caps) return skip('no session');
      const level = conformanceOf(p.state.caps);
      if (level === 'L1' || level === 'L2') return pass('retrieve dense+sparse+hybrid, filter and citations advertised');
      const r = p.state.caps.retrieve;
      const missing = [...['dense', 'sparse', 'hybrid'].filter((m) => !r?.modes?.includes(m as never)).map((m) => `mode ${m}`), ...(p.state.caps.filter ? [] : ['filter']), ...(p.state.caps.citations || r?.citations ? [] : ['citations'])];
      return skip(`not advertised: ${missing.join(', ')}, so L1 cannot be certified`);
    },
  },
  {
    id: 'l2-surface',
    level: 'L2',
    section: '14.3',
    offline: true,
    sentence: 'An L2 server is L1 and additionally SHOULD advertise and implement a selection of: `rerank`, `multiVector`, `sparseEmbed`, `query/transform`, `graph`, `streaming`, `pagination`, `log`, and reproducibility.',
    async run(p) {
      if (!p.state.caps) return skip('no session');
      const c = p.state.caps;
      const have = (['rerank', 'multiVector', 'sparseEmbed', 'transform', 'graph', 'streaming', 'pagination', 'log'] as const).filter((k) => c[k] !== undefined);
      if (c.retrieve?.deterministic || c.retrieve?.snapshots) have.push('deterministic/snapshots' as never);
      return conformanceOf(c) === 'L2' ? pass(have.join(', ')) : skip(`${have.length ? have.join(', ') : 'none of them'}${conformanceOf(c) === 'L1' ? '' : ' (and not L1)'}: L2 needs L1 and two or more`);
    },
  },
];

