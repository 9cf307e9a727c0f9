/**
 * The checker over HTTP against endpoints that misbehave at the transport: down, silent, HTML,
 * a body too large, a body that is JSON but not the answer. Each ends the run quickly with a
 * failed check that says why; nothing throws.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpWire, sseFrames } from '../../src/conformance/http-wire.ts';
import { runConformance } from '../../src/conformance/run.ts';
import type { Report } from '../../src/conformance/types.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => (server ? server.close(ok) : ok(undefined)));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/rcp`;
}

const first = (r: Report) => r.checks.find((c) => c.id === 'info-before-initialize')!;
const check = (url: string, timeoutMs = 400) => runConformance(new HttpWire(url), { timeoutMs, startupMs: timeoutMs, unavailableRetryMs: 200 });

describe('HTTP endpoints that fail at the transport', () => {
  it('down (connection refused): one failed check naming it, the rest not run, at once', async () => {
    const url = await serve(() => undefined);
    await new Promise((ok) => server!.close(ok));
    server = undefined;
    const t0 = performance.now();
    const r = await check(url, 10_000); // a refusal comes at once; the limit only keeps a loaded machine from turning it into a time-out
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(first(r).status).toBe('fail');
    expect(first(r).detail).toContain('unreachable');
    expect(r.checks.filter((c) => c.status === 'fail').length).toBeLessThan(4);
    expect(r.certifiedLevel).toBeNull();
  });

  it('never answering: two time-outs end the run', async () => {
    const url = await serve(() => undefined);
    const t0 = performance.now();
    const r = await check(url, 300);
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(first(r).detail).toContain('no answer within 300 ms');
    expect(r.checks.some((c) => c.detail.startsWith('not run: '))).toBe(true);
  });

  it('slow but answering within the limit is fine; beyond it is a time-out', async () => {
    const url = await serve((_req, res, body) => {
      const { id } = JSON.parse(body);
      setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} })), 150);
    });
    const ok = await new HttpWire(url).send('{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}', { expect: { kind: 'response', id: 1 }, method: 'ping', timeoutMs: 1000 });
    expect(ok.fault).toBeUndefined();
    const late = await new HttpWire(url).send('{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}', { expect: { kind: 'response', id: 2 }, method: 'ping', timeoutMs: 50 });
    expect(late.fault?.kind).toBe('timeout');
  });

  it('answering HTML: every check that asks fails with "not JSON", and the run completes', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Welcome to nginx</title>'));
    const r = await check(url);
    expect(first(r).status).toBe('fail');
    expect(first(r).detail).toMatch(/text\/html answer is not JSON: <!doctype html>/);
    expect(r.checks.find((c) => c.id === 'declared-level-honest')).toBeDefined();
  });

  it('a body over the limit is refused unread', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let n = 0;
      const more = () => {
        while (n++ < 12) if (!res.write(chunk)) return void res.once('drain', more);
        res.end('{}');
      };
      more();
    });
    const r = await runConformance(new HttpWire(url, { maxBodyBytes: 4 << 20 }), { timeoutMs: 3000, startupMs: 3000 });
    expect(first(r).status).toBe('fail');
    expect(first(r).detail).toContain('exceeds the 4194304-byte limit');
  });

  it('a JSON body that is not the answer (no id, malformed JSON-RPC)', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","result":{"server":{}}}'));
    const r = await check(url);
    expect(first(r).status).toBe('fail');
    expect(first(r).detail).toContain('no response with id');
    expect(r.checks.find((c) => c.id === 'jsonrpc-well-formed')!.status).toBe('fail');
  });

  it('sends the bearer token, never reports it, and follows a session token from initialize', async () => {
    const seen: { auth?: string; session?: string; method: string }[] = [];
    const url = await serve((req, res, body) => {
      let m: { id?: unknown; method?: string };
      try {
        m = JSON.parse(body);
      } catch {
        return void res.writeHead(400).end();
      }
      seen.push({ auth: req.headers.authorization, session: req.headers['rcp-session'] as string | undefined, method: String(m.method) });
      const result = m.method === 'initialize' ? { protocolVersion: 1, server: { name: 's', version: '1' }, capabilities: {}, _meta: { session: 'tok-1' } } : {};
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, result }));
    });
    const r = await runConformance(new HttpWire(url, { token: 'sekrit-123' }), { timeoutMs: 500, startupMs: 500 });
    expect(seen[0].auth).toBeUndefined(); // http-auth-before-initialize: the request without the token
    expect(seen.slice(1).every((s) => s.auth === 'Bearer sekrit-123')).toBe(true);
    const init = seen.findIndex((s, i) => i > 0 && s.method === 'initialize');
    expect(seen[init + 1].session).toBe('tok-1');
    expect(JSON.stringify(r)).not.toContain('sekrit-123');
  });
});

describe('SSE framing', () => {
  it('splits data: events, joins multi-line data, ignores comments', () => {
    expect(sseFrames('data: {"a":1}\n\n: comment\n\ndata: {"b":\ndata: 2}\n\n')).toEqual(['{"a":1}', '{"b":\n2}']);
  });
});
