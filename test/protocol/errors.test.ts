import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { conformanceOf } from '../../src/protocol/conformance.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import { toWire } from '../../src/protocol/json.ts';

describe('RcpError (§12)', () => {
  it('§12 message is "[RCP <code>] <message>" and the wire object keeps the bare message and data', () => {
    const e = new RcpError(-32602, 'invalid params: k', { field: 'k' });
    expect(e.message).toBe('[RCP -32602] invalid params: k');
    expect(e.code).toBe(-32602);
    expect(e.data).toEqual({ field: 'k' });
    expect(e.toJSON()).toEqual({ code: -32602, message: 'invalid params: k', data: { field: 'k' } });
    expect(RcpError.fromObject(e.toJSON()).message).toBe(e.message);
  });

  it('§12.2 retryable() follows the retry table', () => {
    const yes = [ErrorCode.RateLimited, ErrorCode.BackendUnavailable, ErrorCode.Timeout, ErrorCode.NotInitialized, ErrorCode.InternalError, ErrorCode.Conflict];
    const no = [
      ErrorCode.VersionMismatch, ErrorCode.CapabilityMissing, ErrorCode.UnknownMethod, ErrorCode.OptionUnsupported,
      ErrorCode.InvalidParams, ErrorCode.Cancelled, ErrorCode.Unauthorized, ErrorCode.PayloadTooLarge, ErrorCode.NotFound,
    ];
    for (const c of yes) expect(new RcpError(c, 'x').retryable(), String(c)).toBe(true);
    for (const c of no) expect(new RcpError(c, 'x').retryable(), String(c)).toBe(false);
    expect(new RcpError(-32099, 'unknown code').retryable()).toBe(false);
    expect(new RcpError(ErrorCode.InternalError, 'x', { retryable: false }).retryable()).toBe(false); // the server's word wins
  });

  it('§12.1 retryAfterMs() returns only a valid hint', () => {
    expect(new RcpError(-32011, 'x', { retryAfterMs: 250 }).retryAfterMs()).toBe(250);
    expect(new RcpError(-32011, 'x', { retryAfterMs: -1 }).retryAfterMs()).toBeUndefined();
    expect(new RcpError(-32011, 'x').retryAfterMs()).toBeUndefined();
  });
});

describe('wire JSON (§4.6, §5.1)', () => {
  it('never emits NaN/Infinity and keeps order with finite sentinels', () => {
    const text = toWire({ a: NaN, b: Infinity, c: -Infinity, d: [1, NaN] });
    expect(text).not.toMatch(/NaN|Infinity|null/);
    const v = JSON.parse(text);
    expect(v.b).toBeGreaterThan(1e300);
    expect(v.c).toBeLessThan(-1e300);
  });

  it('a frame never contains a raw newline', () => {
    expect(toWire({ text: 'a\nb\r\nc\u2028' })).not.toMatch(/\n/);
  });
});

describe('conformance declaration (§14)', () => {
  it('declares L0 for sparse-only retrieval, L1 with dense+sparse+hybrid+filter+citations, L2 with SOTA surfaces', () => {
    expect(conformanceOf({})).toBeUndefined();
    expect(conformanceOf({ retrieve: { modes: ['sparse'] } })).toBe('L0');
    const l1 = { retrieve: { modes: ['dense', 'sparse', 'hybrid'] as const }, filter: { fields: ['a'] }, citations: {} };
    expect(conformanceOf({ ...l1, retrieve: { modes: [...l1.retrieve.modes] } })).toBe('L1');
    expect(conformanceOf({ ...l1, retrieve: { modes: [...l1.retrieve.modes] }, streaming: {}, pagination: {} })).toBe('L2');
    expect(conformanceOf({ retrieve: { modes: ['dense', 'sparse', 'hybrid'] }, streaming: {}, pagination: {} })).toBe('L0'); // no filter
  });
});

describe('isNotification (§4.5): what a transport must not wait an answer for', () => {
  it('only jsonrpc 2.0 + string method + no id', async () => {
    const { isNotification } = await import('../../src/protocol/framing.ts');
    expect(isNotification({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } })).toBe(true);
    for (const v of [{}, { foo: 'boo' }, { jsonrpc: '2.0', method: 5 }, { method: 'ping', params: {} }, { jsonrpc: '2.0', id: 1, method: 'ping' }, 7, null]) {
      expect(isNotification(v), JSON.stringify(v)).toBe(false);
    }
  });
});
