/**
 * Checks of one transport's framing: stdio's NDJSON (§5.1) and HTTP's paths, statuses, auth and
 * SSE (§5.2). Each is skipped on the other transports.
 */
import { isObject } from '../../protocol/json.ts';
import type { Probe } from '../probe.ts';
import type { CheckDef, Verdict } from '../types.ts';
import { tryParse } from '../wire.ts';
import { all, described, expectError, fail, pass, skip } from '../verdicts.ts';
import { hitsOf } from './common.ts';

type Check = CheckDef<Probe>;

const only = (p: Probe, t: 'stdio' | 'http'): Verdict | undefined => (p.transport === t ? undefined : skip(`${t} only`));
const line = (o: unknown) => `${JSON.stringify(o)}\n`;

/** Runs first, before any initialize: auth is applied before it (§5.2). */
export const authFirst: Check[] = [
  {
    id: 'http-auth-before-initialize',
    level: 'L0',
    section: '5.2',
    sentence: 'HTTP deployments MAY require standard mechanisms (`Authorization: Bearer …`) … Servers MUST apply auth before `initialize`.',
    async run(p) {
      const wire = p.state.wire as { hasToken?: boolean };
      if (p.transport !== 'http') return skip('http only');
      if (!wire.hasToken) return skip('no bearer token given, so nothing shows whether the endpoint requires one');
      const a = await p.call('initialize', { protocolVersion: 1, client: { name: 'rcp-in-page-conformance', version: '1' } }, { headers: { Authorization: null } });
      const status = a.reply.http?.status;
      if (status === 401 || status === 403) return pass(`initialize without the token: HTTP ${status}`);
      if (a.error?.code === -32012) return pass('initialize without the token: -32012');
      return fail(`initialize without the token was not refused: HTTP ${status ?? '?'}, ${described(a)}`);
    },
  },
];

export const framingChecks: Check[] = [
  {
    id: 'stdio-blank-lines',
    level: 'L0',
    section: '5.1',
    sentence: 'A reader MUST tolerate blank lines between messages (ignore them).',
    async run(p) {
      const w = p.state.wire;
      const no = only(p, 'stdio');
      if (no || !w.writeRaw) return no ?? skip('stdio only');
      const strays = w.strays().length;
      p.evidence.push({ dir: 'out', text: '"\\n\\r\\n   \\n" (blank lines)' });
      w.writeRaw('\n\r\n   \n');
      const a = await p.call('ping', { nonce: 'after-blank-lines' });
      const extra = w.strays().slice(strays);
      if (extra.length) return fail(`the blank lines drew ${extra.length} frame(s): ${extra[0].slice(0, 200)}`);
      return a.result?.nonce === 'after-blank-lines' ? pass('blank lines ignored; the next ping answered') : fail(`ping after blank lines: ${described(a)}`);
    },
  },
  {
    id: 'stdio-split-frames',
    level: 'L0',
    section: '5.1',
    sentence: 'A reader … MUST NOT assume messages arrive one per `read()`; buffer until `\\n`.',
    async run(p) {
      const w = p.state.wire;
      const no = only(p, 'stdio');
      if (no || !w.writeRaw || !w.listen) return no ?? skip('stdio only');
      const one = line({ jsonrpc: '2.0', id: 'split-1', method: 'ping', params: { nonce: 'split-1' } });
      const two = line({ jsonrpc: '2.0', id: 'split-2', method: 'ping', params: { nonce: 'split-2' } });
      const t = p.state.options.timeoutMs;
      const r1 = w.listen({ kind: 'response', id: 'split-1' }, t);
      const r2 = w.listen({ kind: 'response', id: 'split-2' }, t);
      const cut = Math.floor(one.length / 2);
      p.evidence.push({ dir: 'out', text: `${one.slice(0, cut)} ⟨50 ms pause⟩ ${one.slice(cut)}${two}`.replace(/\n/g, '\\n') });
      w.writeRaw(one.slice(0, cut));
      await new Promise((ok) => setTimeout(ok, 50));
      w.writeRaw(one.slice(cut) + two);
      const [a, b] = await Promise.all([r1, r2]);
      for (const f of [...a.frames, ...b.frames]) p.evidence.push({ dir: 'in', text: f });
      const ok = (r: typeof a, n: string) => r.frames.some((f) => {
        const v = tryParse(f);
        return v.ok && isObject(v.value) && isObject(v.value.result) && v.value.result.nonce === n;
      });
      return ok(a, 'split-1') && ok(b, 'split-2') ? pass('a frame split over two writes, and two frames in one write: both answered') : fail(`answers: ${a.fault?.message ?? a.frames.join(' ')} / ${b.fault?.message ?? b.frames.join(' ')}`);
    },
  },
  {
    id: 'http-method-path-mismatch',
    level: 'L0',
    section: '5.2',
    sentence: 'The method in the URL path MUST match the `method` in the body; on mismatch the server MUST return `-32600`.',
    async run(p) {
      const no = only(p, 'http');
      if (no) return no;
      const id = p.freshId();
      const a = await p.exchange(JSON.stringify({ jsonrpc: '2.0', id, method: 'info', params: {} }), { kind: 'response', id, alsoNull: true }, 'ping');
      if (a.reply.http?.status === 400 && !a.response) return pass('HTTP 400');
      return expectError(a, [-32600], 'body method info posted to <base>/ping');
    },
  },
  {
    id: 'http-buffered-without-sse',
    level: 'L0',
    section: '5.2',
    sentence: 'If the client did not request SSE, the server MUST return a single buffered JSON response.',
    async run(p) {
      const no = only(p, 'http');
      if (no) return no;
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const token = `rcp-conformance-progress-${p.freshId()}`;
      p.state.progressTokens.add(token);
      const a = await p.call('retrieve', { query: 'test', k: 2, _meta: { progressToken: token } }, { headers: { Accept: 'application/json' } });
      const ct = a.reply.http?.contentType;
      if (ct !== 'application/json') return fail(`Content-Type ${ct ?? '(none)'} without Accept: text/event-stream`);
      return a.reply.frames.length === 1 && hitsOf(a.result) ? pass('one application/json response') : fail(`${a.reply.frames.length} frames: ${described(a)}`);
    },
  },
  {
    id: 'http-sse',
    level: 'L2',
    section: '5.2',
    sentence:
      'When the client sends `Accept: text/event-stream` and the server advertised `streaming`, the server MAY respond with `Content-Type: text/event-stream` and emit zero or more `notifications/progress` frames followed by exactly one final frame carrying the JSON-RPC response.',
    async run(p) {
      const no = only(p, 'http');
      if (no) return no;
      if (!p.caps.streaming) return skip('streaming not advertised');
      if (!p.caps.retrieve) return skip('retrieve not advertised');
      const token = `rcp-conformance-progress-${p.freshId()}`;
      p.state.progressTokens.add(token);
      const a = await p.call('retrieve', { query: 'test', k: 2, _meta: { progressToken: token } }, { headers: { Accept: 'text/event-stream' } });
      if (a.reply.http?.contentType !== 'text/event-stream') return hitsOf(a.result) ? pass('answered with buffered JSON (SSE is a MAY)') : fail(described(a));
      const frames = a.reply.frames.map((f) => JSON.parse(f) as Record<string, unknown>);
      const last = frames[frames.length - 1];
      const responses = frames.filter((f) => !('method' in f));
      if (responses.length !== 1 || last !== responses[0]) return fail(`${responses.length} responses in the stream; exactly one, last, expected`);
      const other = frames.slice(0, -1).find((f) => f.method !== 'notifications/progress' && f.method !== 'notifications/log');
      if (other) return fail(`a frame before the response is neither progress nor log: ${JSON.stringify(other).slice(0, 200)}`);
      return all([pass(`${frames.length - 1} progress frame(s), then the response`), hitsOf(a.result) ? pass('') : fail(described(a))]);
    },
  },
];
