/**
 * L0 behaviour of any session (§4, §7, §11, §12, §14.1): notifications never answered, method
 * and capability errors, id echo, forward compatibility, bad input, batches and cancellation.
 */
import { isObject } from '../../protocol/json.ts';
import { METHOD_GATES } from '../../protocol/methods.ts';
import type { Method } from '../../protocol/types.ts';
import { Probe } from '../probe.ts';
import type { CheckDef, Verdict } from '../types.ts';
import type { Reply } from '../wire.ts';
import { all, described, expectError, fail, pass, skip } from '../verdicts.ts';
import { gatedCall } from './common.ts';

type Check = CheckDef<Probe>;

/** Passes when a notification drew no response (notifications the server sent meanwhile are fine). */
function silent(reply: Reply, what: string): Verdict {
  if (reply.fault && reply.fault.kind !== 'timeout') return fail(`${what}: ${reply.fault.message}`);
  const answered = Probe.answers(reply);
  if (answered.length) return fail(`${what} was answered: ${JSON.stringify(answered[0]).slice(0, 200)}`);
  if (reply.http && reply.http.status !== 204 && reply.http.status !== 200 && reply.http.status !== 202) return fail(`${what}: HTTP ${reply.http.status}`);
  return pass(`${what}: no answer`);
}

/** Liveness after frames a server might choke on. */
async function alive(p: Probe, after: string): Promise<Verdict> {
  const a = await p.call('ping', { nonce: 'alive' });
  return a.result?.nonce === 'alive' ? pass(`still answers after ${after}`) : fail(`after ${after}, ping got ${described(a)}`);
}

export const notifications: Check[] = [
  {
    id: 'notification-not-answered',
    level: 'L0',
    section: '4.5',
    sentence: 'A message with no `id` is a notification and MUST NOT be answered.',
    async run(p) {
      const { method, params } = gatedCall(p.state.defaultInfo?.capabilities);
      return all([
        silent(await p.notify(method, params), `a ${method} notification`),
        silent(await p.notify('info', {}), 'an info notification'),
        silent(await p.notify('does/not/exist', {}), 'a notification of an undefined method'),
      ]);
    },
  },
  {
    id: 'unknown-notification-ignored',
    level: 'L0',
    section: '4.5',
    sentence: 'Peers MUST silently ignore any `notifications/*` method they do not recognise (it has no `id`, so there is nothing to answer).',
    async run(p) {
      return all([silent(await p.notify('notifications/x-conformance-unknown', { anything: true }), 'notifications/x-conformance-unknown'), await alive(p, 'it')]);
    },
  },
  {
    id: 'cancel-unknown-id-ignored',
    level: 'L0',
    section: '7.14',
    sentence: 'Cancelling an unknown or already-answered `id` is a no-op the server MUST ignore. (§14.1: treat `notifications/cancel` for an unknown/already-answered `id` as a no-op.)',
    async run(p) {
      const done = await p.call('ping', {});
      const answeredId = done.response?.id;
      return all([
        silent(await p.notify('notifications/cancel', { id: 'rcp-conformance-never-sent' }), 'cancel of an id never sent'),
        silent(await p.notify('notifications/cancel', { id: answeredId ?? 0 }), 'cancel of an already-answered id'),
        await alive(p, 'both cancels'),
      ]);
    },
  },
];

/** Core methods to try, read-only first, for the -32003 probe. */
const UNADVERTISED_PROBES: [Method, Record<string, unknown>][] = [
  ['memory/recall', { query: 'conformance' }],
  ['catalog/list', {}],
  ['graph', { op: 'local', query: 'conformance' }],
  ['embed/multi', { inputs: ['conformance'] }],
  ['embed/sparse', { texts: ['conformance'] }],
  ['query/transform', { query: 'conformance', method: 'rewrite' }],
  ['rerank', { query: 'conformance', passages: ['a'] }],
  ['embed', { inputs: ['conformance'] }],
  ['retrieve', { query: 'conformance', k: 1 }],
  ['feedback', { signals: [] }],
  ['index/delete', { ids: [] }],
];

const ECHO_IDS: (string | number)[] = ['str-id-1', 42, 0, -7, 9007199254740991, '7', 'ключ-🔑'];

export const session: Check[] = [
  {
    id: 'unknown-method',
    level: 'L0',
    section: '7',
    sentence: 'Calling an undefined method yields `-32004` (`UnknownMethod`). (§14.1: reject undefined methods with `-32004`.)',
    async run(p) {
      return expectError(await p.call('does/not/exist', {}), [-32004], 'does/not/exist');
    },
  },
  {
    id: 'unadvertised-method',
    level: 'L0',
    section: '7',
    sentence: 'Every optional method is callable only when the server advertised its gating capability at `initialize`; calling an un-advertised one yields `-32003` (`CapabilityMissing`).',
    async run(p) {
      const probe = UNADVERTISED_PROBES.find(([m]) => {
        const gate = METHOD_GATES[m];
        return gate !== null && p.caps[gate] === undefined;
      });
      if (!probe) return skip('the server advertises every capability that gates a core method');
      const [method, params] = probe;
      return expectError(await p.call(method, params), [-32003], `${method} (capability ${METHOD_GATES[method]} not advertised)`);
    },
  },
  {
    id: 'id-echo',
    level: 'L0',
    section: '4.7',
    sentence: 'Servers MUST echo the request `id` unchanged (same JSON type and value) in the response.',
    async run(p) {
      for (const id of ECHO_IDS) {
        const a = await p.call('ping', {}, { id });
        if (!a.response) return fail(`id ${JSON.stringify(id)}: ${described(a)}`);
      }
      return pass(`ids ${ECHO_IDS.map((i) => JSON.stringify(i)).join(', ')} echoed`);
    },
  },
  {
    id: 'unknown-fields-tolerated',
    level: 'L0',
    section: '4.6',
    sentence: 'Unknown fields in any object MUST be ignored by the receiver, never rejected (forward compatibility). (§4.4: peers MUST ignore `_meta` keys they do not understand.)',
    async run(p) {
      const a = await p.call('ping', { nonce: 5, 'x-conformance-unknown': { nested: [1, 2] }, _meta: { 'x-conformance': 'ignore me' } });
      if (a.result?.nonce !== 5) return fail(`ping with unknown params fields and _meta: ${described(a)}`);
      const id = p.freshId();
      const b = await p.exchange(JSON.stringify({ jsonrpc: '2.0', id, method: 'info', params: { 'x-conformance-unknown': true }, 'x-conformance-member': 1 }), { kind: 'response', id }, 'info');
      if (!b.result) return fail(`info with an unknown field in the request object and in params: ${described(b)}`);
      return pass('ping and info with unknown fields and _meta keys answered normally');
    },
  },
  {
    id: 'pipelined-requests',
    level: 'L0',
    section: '4.7',
    sentence: 'A client MAY have multiple requests in flight on one connection (pipelining). A server MAY answer them in any order. (§13.1: every request MUST eventually be answered exactly once.)',
    async run(p) {
      const nonces = [1, 2, 3, 4, 5];
      const answers = await Promise.all(nonces.map((n) => p.call('ping', { nonce: n })));
      const bad = answers.findIndex((a, i) => a.result?.nonce !== nonces[i]);
      return bad < 0 ? pass('5 pings in flight at once, each answered') : fail(`ping ${bad + 1} of 5 in flight: ${described(answers[bad])}`);
    },
  },
  {
    id: 'parse-error',
    level: 'L0',
    section: '12',
    sentence: '`-32700` `ParseError`: Invalid JSON. (§14.1: return well-formed JSON-RPC 2.0 for every request; §5.2: HTTP `400` when a body cannot be produced.)',
    async run(p) {
      const a = await p.exchange('{"jsonrpc":"2.0","id":"parse-1","method":"ping"', { kind: 'response', id: null, alsoNull: true }, 'ping');
      if (a.reply.http?.status === 400 && !a.response) return pass('HTTP 400 (§5.2)');
      if (a.reply.http && a.reply.http.status !== 200 && a.reply.http.status !== 400) return fail(`HTTP ${a.reply.http.status} for invalid JSON (§5.2: 200 with the error, or 400)`);
      return expectError(a, [-32700], 'a truncated JSON text');
    },
  },
  {
    id: 'invalid-request',
    level: 'L0',
    section: '12',
    sentence: '`-32600` `InvalidRequest`: Not a valid Request object. (§4: the `jsonrpc` member MUST be `"2.0"`; §4.1: `method` MUST be a method name.)',
    async run(p) {
      const cases: [string, string | undefined, string][] = [
        ['42', undefined, 'a number instead of a request object'],
        [JSON.stringify({ jsonrpc: '2.0', id: 'inv-1', method: 7, params: {} }), undefined, 'a request whose method is a number'],
        [JSON.stringify({ jsonrpc: '1.0', id: 'inv-2', method: 'ping', params: {} }), 'ping', 'a request with jsonrpc "1.0"'],
      ];
      const out: Verdict[] = [];
      for (const [text, method, what] of cases) {
        const id = (/"id":"(inv-\d)"/.exec(text) ?? [])[1] ?? null;
        const a = await p.exchange(text, { kind: 'response', id, alsoNull: true }, method);
        if (a.reply.http?.status === 400 && !a.response) out.push(pass(`${what}: HTTP 400`));
        else out.push(expectError(a, [-32600], what));
      }
      return all(out);
    },
  },
  {
    id: 'params-must-be-object',
    level: 'L0',
    section: '4.1',
    sentence: '`params` MUST be an object (RCP does not use positional parameters). (§14.1: validate params and return `-32602` on malformed input.)',
    async run(p) {
      return expectError(await p.call('ping', [1, 2]), [-32602, -32600], 'ping with positional (array) params');
    },
  },
  {
    id: 'invalid-params',
    level: 'L0',
    section: '14.1',
    sentence: 'An L0 server MUST … validate params and return `-32602` on malformed input instead of crashing.',
    async run(p) {
      const c = p.caps;
      const [method, params, what]: [string, Record<string, unknown>, string] = c.retrieve
        ? ['retrieve', { k: 3 }, 'retrieve without query']
        : c.embed
          ? ['embed', { inputs: 'not an array' }, 'embed with inputs not an array']
          : c.rerank
            ? ['rerank', { passages: ['a'] }, 'rerank without query']
            : c.index
              ? ['index/delete', { ids: 'not-an-array' }, 'index/delete with ids not an array']
              : ['initialize', {}, 'initialize without protocolVersion'];
      return all([expectError(await p.call(method, params), method === 'initialize' ? [-32602, -32600] : [-32602], what), await alive(p, what)]);
    },
  },
  {
    id: 'alive-after-bad-input',
    level: 'L0',
    section: '14.1',
    sentence: 'Return well-formed JSON-RPC 2.0 for every request; … return `-32602` on malformed input instead of crashing.',
    async run(p) {
      return alive(p, 'invalid JSON, invalid requests and invalid params');
    },
  },
];

/** Batches (§11) go to `<base>` over HTTP, which §5.2 does not name: a server refusing them there is skipped. */
function batchUnsupported(p: Probe, reply: Reply): string | undefined {
  const s = reply.http?.status;
  if (p.transport === 'http' && s !== undefined && s !== 200 && s !== 204) return `POST ${reply.http!.url} answered HTTP ${s}: §5.2 gives a batch no URL, and this endpoint takes none at its base`;
  return undefined;
}

const ping = (id: string, nonce?: unknown) => ({ jsonrpc: '2.0', id, method: 'ping', params: nonce === undefined ? {} : { nonce } });

export const batches: Check[] = [
  {
    id: 'batch',
    level: 'L0',
    section: '11',
    sentence:
      'The server MUST reply with an array containing one response object per *request* in the batch, in any order (clients correlate by `id`). Notifications in the batch (members with no `id`) produce **no** response entry.',
    async run(p) {
      const a = await p.exchange(JSON.stringify([ping('b1', 'one'), { jsonrpc: '2.0', id: 'b2', method: 'info', params: {} }, { jsonrpc: '2.0', method: 'ping', params: {} }]), { kind: 'batch' });
      const why = batchUnsupported(p, a.reply);
      if (why) return skip(why);
      const arr = a.reply.frames.map((f) => JSON.parse(f) as unknown).find(Array.isArray) as unknown[] | undefined;
      if (!arr) return fail(`expected an array of 2 responses, got ${a.problem ?? a.reply.frames.join(' ').slice(0, 200)}`);
      const ids = arr.map((r) => (isObject(r) ? r.id : undefined));
      if (arr.length !== 2 || !ids.includes('b1') || !ids.includes('b2')) return fail(`expected responses for b1 and b2 only, got ids ${JSON.stringify(ids)}`);
      const one = arr.find((r) => isObject(r) && r.id === 'b1') as Record<string, unknown>;
      if (!isObject(one.result) || one.result.nonce !== 'one') return fail(`b1 (ping) answered ${JSON.stringify(one).slice(0, 200)}`);
      return pass('2 requests and 1 notification: 2 responses');
    },
  },
  {
    id: 'batch-empty',
    level: 'L0',
    section: '11',
    sentence: 'An **empty array** is an invalid request: the server MUST reply with a single (non-array) `-32600` error, `id: null`.',
    async run(p) {
      const a = await p.exchange('[]', { kind: 'batch' });
      const why = batchUnsupported(p, a.reply);
      if (why) return a.reply.http?.status === 400 ? pass('HTTP 400 for an empty batch (§5.2)') : skip(why);
      const v = a.reply.frames.map((f) => JSON.parse(f) as unknown)[0];
      if (Array.isArray(v) || !isObject(v)) return fail(`expected one -32600 object, got ${a.problem ?? JSON.stringify(v)?.slice(0, 200)}`);
      return isObject(v.error) && v.error.code === -32600 && v.id === null ? pass('a single -32600 with id null') : fail(`expected -32600 with id null, got ${JSON.stringify(v).slice(0, 200)}`);
    },
  },
  {
    id: 'batch-only-notifications',
    level: 'L0',
    section: '11',
    sentence: 'If the batch contains **only notifications**, the server processes them and returns **nothing** (no HTTP body / no stdio line).',
    async run(p) {
      p.evidence.push({ dir: 'out', text: '[2 notifications]' });
      const reply = await p.state.wire.send(JSON.stringify([{ jsonrpc: '2.0', method: 'ping', params: {} }, { jsonrpc: '2.0', method: 'info', params: {} }]), { expect: { kind: 'silence' }, timeoutMs: p.state.options.timeoutMs });
      for (const f of reply.frames) p.evidence.push({ dir: 'in', text: f });
      const why = batchUnsupported(p, reply);
      if (why) return skip(why);
      return silent(reply, 'a batch of 2 notifications');
    },
  },
  {
    id: 'batch-invalid-member',
    level: 'L0',
    section: '11',
    sentence: 'A member that is not a well-formed request yields a `-32600` entry with `id: null`; well-formed members are still processed. One member\'s error never fails the others.',
    async run(p) {
      const a = await p.exchange(JSON.stringify([ping('b3', 3), 42]), { kind: 'batch' });
      const why = batchUnsupported(p, a.reply);
      if (why) return skip(why);
      const arr = a.reply.frames.map((f) => JSON.parse(f) as unknown).find(Array.isArray) as unknown[] | undefined;
      if (!arr) return fail(`expected an array, got ${a.problem ?? a.reply.frames.join(' ').slice(0, 200)}`);
      const good = arr.find((r) => isObject(r) && r.id === 'b3');
      const bad = arr.find((r) => isObject(r) && r.id === null && isObject(r.error) && r.error.code === -32600);
      if (!good || !isObject((good as Record<string, unknown>).result)) return fail(`the well-formed member b3 was not answered with a result: ${JSON.stringify(arr).slice(0, 200)}`);
      if (!bad) return fail(`no -32600 entry with id null for the member 42: ${JSON.stringify(arr).slice(0, 200)}`);
      return arr.length === 2 ? pass('one result and one -32600 entry') : fail(`expected 2 entries, got ${arr.length}`);
    },
  },
];

export const cancellation: Check[] = [
  {
    id: 'cancel-exactly-one-response',
    level: 'L0',
    section: '7.14',
    sentence:
      'On receipt the server SHOULD stop work for that request as soon as practical. It then MUST still send exactly one response for the cancelled request: either the normal result … or an error with code `-32006` (`Cancelled`).',
    async run(p) {
      const { method, params } = gatedCall(p.caps);
      const id = p.freshId();
      const answer = p.call(method, params, { id });
      await new Promise((ok) => setTimeout(ok, 0));
      await p.notify('notifications/cancel', { id, reason: 'conformance check' });
      const a = await answer;
      if (a.result) return pass('the normal result (the request completed first)');
      return expectError(a, [-32006], `${method} cancelled right after sending`);
    },
  },
];

