/**
 * §7.1, §7.2, §7.12, §7.15, §13, §14: the session lifecycle, from before `initialize` to
 * `shutdown`. Order matters: these run first (pre-initialize), then the handshake, and
 * `shutdown` runs last of all the checks that send anything.
 */
import { isObject } from '../../protocol/json.ts';
import type { Capabilities, InitializeResult } from '../../protocol/types.ts';
import { jsonEqual } from '../../util/canonical-json.ts';
import { Probe } from '../probe.ts';
import type { CheckDef } from '../types.ts';
import { all, described, expectError, fail, isInt, pass, resultOf, skip } from '../verdicts.ts';
import { gatedCall } from './common.ts';

type Check = CheckDef<Probe>;

const CLIENT = { name: 'rcp-in-page-conformance', version: '1' };
const RETRIEVAL_KEYS = ['embed', 'rerank', 'retrieve', 'graph'] as const;

/** The shape §7.1 gives `initialize.result` (and §7.2 `info`). */
function initShape(r: Record<string, unknown>): string | undefined {
  if (!isInt(r.protocolVersion) || r.protocolVersion < 1) return `protocolVersion ${JSON.stringify(r.protocolVersion)} is not an integer ≥ 1`;
  if (!isObject(r.server) || typeof r.server.name !== 'string' || r.server.name === '') return 'no server.name';
  if (!isObject(r.capabilities)) return 'no capabilities object';
  return undefined;
}

const statelessNote =
  'a stateless HTTP endpoint (§5.2: "A stateless HTTP server MAY treat every request as implicitly initialized"); run the checker against a stateful session to check this';

export const beforeInitialize: Check[] = [
  {
    id: 'info-before-initialize',
    level: 'L0',
    section: '7.2',
    sentence: '`info`: "Same shape as `initialize.result`, no state change. Callable any time." (§14.1: answer `info` and `ping` at any time, including before `initialize`)',
    async run(p) {
      const a = await p.call('info', {});
      const r = resultOf(a, 'info before initialize');
      if (!r.ok) return r.verdict;
      const bad = initShape(r.result);
      if (bad) return fail(`info before initialize: ${bad}`);
      p.state.defaultInfo = r.result as unknown as InitializeResult;
      return pass(`server ${String((r.result.server as { name: string }).name)}, protocolVersion ${String(r.result.protocolVersion)}`);
    },
  },
  {
    id: 'ping-before-initialize',
    level: 'L0',
    section: '7.15',
    sentence: '`ping`: "Callable any time (including before `initialize`), never changes state. The server MUST echo any `nonce` it received."',
    async run(p) {
      const out = [];
      for (const nonce of [777, 'nonce-é-🦘']) {
        const a = await p.call('ping', { nonce });
        const r = resultOf(a, `ping with nonce ${JSON.stringify(nonce)}`);
        if (!r.ok) return r.verdict;
        if (r.result.nonce !== nonce) return fail(`ping echoed nonce ${JSON.stringify(r.result.nonce)} for ${JSON.stringify(nonce)} (same JSON type and value expected)`);
        out.push(JSON.stringify(nonce));
      }
      const plain = resultOf(await p.call('ping', {}), 'ping without nonce');
      if (!plain.ok) return plain.verdict;
      return pass(`nonces ${out.join(', ')} echoed`);
    },
  },
  {
    id: 'gated-before-initialize',
    level: 'L0',
    section: '13',
    sentence: 'A server MUST reject any request before a successful `initialize` with `-32001`, except `info`, `ping`, and `shutdown`.',
    async run(p) {
      const { method, params } = gatedCall(p.state.defaultInfo?.capabilities);
      const a = await p.call(method, params);
      if (a.result && p.transport === 'http') {
        p.state.stateless = true;
        return skip(`${method} before initialize answered with a result: ${statelessNote}`);
      }
      return expectError(a, [-32001], `${method} before initialize`);
    },
  },
  {
    id: 'version-mismatch',
    level: 'L0',
    section: '7.1',
    sentence: 'The server MUST return `-32002` (`VersionMismatch`) only if it cannot satisfy the floor; §12: `-32002` means "No common protocol version" (a client offering version 0 shares none).',
    async run(p) {
      const a = await p.call('initialize', { protocolVersion: 0, client: CLIENT });
      return expectError(a, [-32002], 'initialize with protocolVersion 0');
    },
  },
  {
    id: 'failed-handshake-stays-uninitialized',
    level: 'L0',
    section: '13',
    sentence: 'An `initialize` that fails version negotiation (`-32002`) leaves the session uninitialized, and the server MUST continue to reject gated methods with `-32001`.',
    async run(p) {
      if (p.state.stateless) return skip(statelessNote);
      const { method, params } = gatedCall(p.state.defaultInfo?.capabilities);
      return expectError(await p.call(method, params), [-32001], `${method} after a rejected initialize`);
    },
  },
];

export const handshake: Check[] = [
  {
    id: 'initialize-negotiates',
    level: 'L0',
    section: '7.1',
    sentence:
      'The negotiated version is `min(client.protocolVersion, server.protocolVersion)` and is what the server returns. (§14.1: answer `initialize` with negotiated `protocolVersion` ≥ 1; unknown client capability keys are ignored.)',
    async run(p) {
      // A client supporting versions 1..2 offers 2; an RCP/1 server answers 1.
      const a = await p.call('initialize', { protocolVersion: 2, client: CLIENT, capabilities: { 'x-conformance-probe': {} } });
      let verdict = undefined;
      let result = a.result;
      if (!result) {
        verdict = fail(`initialize offering protocolVersion 2 (the client's highest) was refused: ${described(a)}; only a server with no version ≥ 1 may answer -32002`);
        const retry = await p.call('initialize', { protocolVersion: 1, client: CLIENT });
        result = retry.result;
        if (!result) {
          p.state.faults.fatal ??= `initialize never succeeded (${described(retry)})`;
          return fail(`initialize failed twice (offering 2, then 1): ${described(retry)}`);
        }
        p.note('initialize offering protocolVersion 1 succeeded; the run continues in that session');
      }
      const bad = initShape(result);
      if (bad) {
        p.state.faults.fatal ??= `initialize answered a malformed result (${bad})`;
        return fail(`initialize result: ${bad}`);
      }
      p.state.init = result as unknown as InitializeResult;
      p.state.caps = result.capabilities as Capabilities;
      if (verdict) return verdict;
      const v = result.protocolVersion as number;
      if (v > 2) return fail(`negotiated protocolVersion ${v} is above the client's 2`);
      return pass(`negotiated protocolVersion ${v}`);
    },
  },
  {
    id: 'retrieval-capability',
    level: 'L0',
    section: '14.1',
    sentence: 'An L0 server MUST advertise at least one retrieval capability (`embed`, `rerank`, `retrieve`, or `graph`).',
    async run(p) {
      const present = RETRIEVAL_KEYS.filter((k) => p.caps[k] !== undefined);
      return present.length ? pass(present.join(', ')) : fail(`advertises none of ${RETRIEVAL_KEYS.join(', ')}: ${Object.keys(p.caps).join(', ') || 'no capabilities'}`);
    },
  },
  {
    id: 'declares-level',
    level: 'L0',
    section: '14',
    sentence: 'A server MUST state its level in `info`/`initialize` via `_meta.conformance` (`"L0"`, `"L1"`, or `"L2"`).',
    async run(p) {
      const declared = p.state.init?._meta?.conformance;
      return declared === 'L0' || declared === 'L1' || declared === 'L2' ? pass(`declares ${declared}`) : fail(`initialize result _meta.conformance is ${JSON.stringify(declared)}`);
    },
  },
  {
    id: 'capabilities-are-objects',
    level: 'L0',
    section: '6',
    sentence: "Each capability's value is an object (possibly `{}`); its presence is what signals support.",
    async run(p) {
      const bad = Object.entries(p.caps).filter(([, v]) => !isObject(v)).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
      return bad.length ? fail(`not objects: ${bad.join(', ')}`) : pass(`${Object.keys(p.caps).length} capabilities`);
    },
  },
  {
    id: 'second-initialize-rejected',
    level: 'L0',
    section: '13',
    sentence: 'After a *successful* `initialize`, a second `initialize` MUST be rejected with `-32600`.',
    async run(p) {
      const a = await p.call('initialize', { protocolVersion: 1, client: CLIENT });
      if (a.result && p.state.stateless && p.state.wire.transport === 'http') {
        return skip(`answered again with a result and no session token was issued: ${statelessNote}`);
      }
      return expectError(a, [-32600], 'a second initialize');
    },
  },
  {
    id: 'info-matches-initialize',
    level: 'L0',
    section: '13.2',
    sentence: "`info` MAY be called at any time and MUST report the same capability set as the session's `initialize` once one has succeeded.",
    async run(p) {
      const r = resultOf(await p.call('info', {}), 'info after initialize');
      if (!r.ok) return r.verdict;
      return jsonEqual(r.result.capabilities, p.caps) ? pass('same capability set') : fail('info reports a capability set different from initialize');
    },
  },
];

export const closing: Check[] = [
  {
    id: 'capabilities-stable',
    level: 'L0',
    section: '13.2',
    sentence: 'The capability set returned by a successful `initialize` is fixed for the lifetime of that session. A server MUST NOT add, remove, or narrow a capability afterwards.',
    async run(p) {
      if (!p.state.init) return skip('no session');
      const r = resultOf(await p.call('info', {}), 'info at the end of the run');
      if (!r.ok) return r.verdict;
      return jsonEqual(r.result.capabilities, p.caps) ? pass('info at the end of the run reports the initialize capabilities') : fail('the capability set changed during the session');
    },
  },
  {
    id: 'shutdown',
    level: 'L0',
    section: '7.12',
    sentence: '`shutdown` — REQUIRED. Params `{}` · Result `{}`. (§13.1: it MUST NOT begin processing a request received after the `shutdown` response was written.)',
    async run(p) {
      const r = resultOf(await p.call('shutdown', {}), 'shutdown');
      if (!r.ok) return r.verdict;
      if (p.state.stateless && p.transport === 'http' && !(p.state.wire as { session?: string }).session) return pass('shutdown answered (a stateless endpoint has no session to end)');
      const { method, params } = gatedCall(p.caps);
      const late = await p.call(method, params, { timeoutMs: 2000 });
      if (late.result) return fail(`a ${method} sent after the shutdown answer was processed (it got a result)`);
      return all([pass('shutdown answered {}'), pass(`a request after it was not processed (${late.error ? `error ${late.error.code}` : late.problem ?? 'no answer'})`)]);
    },
  },
  {
    id: 'exit-after-shutdown',
    level: 'L0',
    section: '13.1',
    should: true,
    offline: true,
    sentence: 'After answering `shutdown` a server SHOULD stop reading new requests and exit.',
    async run(p) {
      const w = p.state.wire;
      if (w.transport !== 'stdio' || !w.closedWithin) return skip('stdio only (a process that can exit)');
      return (await w.closedWithin(10_000)) ? pass('the process exited') : fail('the process was still running 10 s after shutdown');
    },
  },
];
