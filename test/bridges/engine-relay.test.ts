import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { EngineRelay } from '../../bridges/engine-relay.ts';
import { serveRelay, type RelayServer } from '../../bridges/relay-server.ts';

/** A stdio engine: answers initialize; `retrieve` for "crash" exits, for "hang" never answers; logs every line it gets. */
const ENGINE = `
const fs = require('node:fs');
const log = process.argv[2];
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    fs.appendFileSync(log, line + '\\n');
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    if (m.method === 'initialize') out(m.id, { protocolVersion: 1, server: { name: 'toy', version: '1' }, capabilities: { retrieve: {} } });
    else if (m.params.query === 'crash') process.exit(7);
    else if (m.params.query === 'hang') {}
    else if (m.params.query === 'slow') {
      const token = m.params._meta && m.params._meta.progressToken;
      if (token !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 0.5, stage: 'recall', message: 'half' } }) + '\\n');
      setTimeout(() => out(m.id, { hits: [{ id: 'slow', score: 1 }] }), 400);
    }
    else out(m.id, { hits: [{ id: 'x', score: 1 }] });
  }
});
function out(id, result) { process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n'); }
`;

let relay: EngineRelay | undefined;
afterEach(async () => relay?.close());

/** A relay over the toy engine (ENGINE) as stdio engine 'toy', and the file the engine logs every line it gets to. */
function toyRelay(diag: (line: string) => void = () => undefined): { toy: EngineRelay; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'relay-'));
  const script = join(dir, 'engine.cjs');
  const log = join(dir, 'log');
  writeFileSync(script, ENGINE);
  writeFileSync(log, '');
  return { toy: new EngineRelay([{ id: 'toy', transport: 'stdio', command: [process.execPath, script, log] }], { diag }), log };
}

const frame = (id: number | undefined, method: string, params: object = {}) => JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params });

describe('EngineRelay over stdio', () => {
  it('restarts a crashed engine with backoff and passes a cancel on to the engine', async () => {
    const lines: string[] = [];
    const { toy, log } = toyRelay((l) => lines.push(l));
    relay = toy;

    const init = JSON.parse((await relay.handle('toy', frame(1, 'initialize'))).body!);
    expect(init.result.server.name).toBe('toy');
    const ok = JSON.parse((await relay.handle('toy', frame(2, 'retrieve', { query: 'q' }))).body!);
    expect(ok.result.hits).toEqual([{ id: 'x', score: 1 }]);

    const crashed = JSON.parse((await relay.handle('toy', frame(3, 'retrieve', { query: 'crash' }))).body!);
    expect(crashed.error.code).toBeLessThan(0);
    const down = JSON.parse((await relay.handle('toy', frame(4, 'retrieve', { query: 'q' }))).body!);
    expect(down.error).toMatchObject({ code: -32010 });
    expect(down.error.message).toMatch(/exited( at once)? \(code 7\); restarting in 1 s/);
    await new Promise((r) => setTimeout(r, 1_500));
    const back = JSON.parse((await relay.handle('toy', frame(5, 'retrieve', { query: 'q' }))).body!);
    expect(back.result.hits).toEqual([{ id: 'x', score: 1 }]);
    expect(lines.some((l) => l.includes("engine 'toy' connected"))).toBe(true);

    // The page's cancel for its request 6 stops the forwarded one; the engine gets its own cancel.
    const pending = relay.handle('toy', frame(6, 'retrieve', { query: 'hang', _meta: { deadlineMs: 20_000 } }));
    await new Promise((r) => setTimeout(r, 300));
    expect((await relay.handle('toy', frame(undefined, 'notifications/cancel', { id: 6 }))).status).toBe(204);
    const cancelled = JSON.parse((await pending).body!);
    expect(cancelled.error.code).toBe(-32006);
    await new Promise((r) => setTimeout(r, 200));
    const got = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const hang = got.find((m) => m.params?.query === 'hang');
    expect(got.some((m) => m.method === 'notifications/cancel' && m.params.id === hang.id)).toBe(true);
  }, 20_000);
});

/** One POST to the relay server as a browser would send it; the body's chunks with when each came (ms after the first). */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; type: string | undefined; chunks: { at: number; text: string }[]; ended: number }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port: u.port, path: u.pathname, method: 'POST', headers: { Host: u.host, 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks: { at: number; text: string }[] = [];
      let first: number | undefined;
      res.setEncoding('utf8');
      res.on('data', (text: string) => chunks.push({ at: Date.now() - (first ??= Date.now()), text }));
      res.on('end', () => ok({ status: res.statusCode ?? 0, type: res.headers['content-type'], chunks, ended: Date.now() - (first ?? Date.now()) }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe('the relay server (loopback, one host per engine)', () => {
  let server: RelayServer | undefined;
  afterEach(async () => server?.close());

  it("streams an engine's progress to the page as it comes, under the page's token, then the answer; refuses other origins, hosts and paths", async () => {
    const { toy, log } = toyRelay();
    relay = toy;
    const app = 'http://localhost:9999';
    server = await serveRelay(relay, { appOrigin: app, engines: ['toy'] });
    const url = server.urlOf(0);
    expect(url).toMatch(/^http:\/\/relay-0\.localhost:\d+\/[0-9a-f]{32}\/rcp$/);
    const asked = frame(2, 'retrieve', { query: 'slow', _meta: { progressToken: 'tok' } });

    const streamed = await post(`${url}/retrieve`, asked, { Origin: app, Accept: 'application/json, text/event-stream' });
    expect(streamed.status).toBe(200);
    expect(streamed.type).toBe('text/event-stream');
    const frames = streamed.chunks.map((c) => c.text).join('').split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(frames).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 0.5, stage: 'recall', message: 'half' } },
      { jsonrpc: '2.0', id: 2, result: { hits: [{ id: 'slow', score: 1 }] } },
    ]);
    // The progress frame was written when the engine sent it, not with the answer 400 ms later.
    expect(streamed.ended - streamed.chunks[0].at).toBeGreaterThanOrEqual(300);
    // The engine saw its own connection's token, never the page's.
    const seen = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.params?.query === 'slow');
    expect(seen[0].params._meta.progressToken).not.toBe('tok');

    // Without SSE: one JSON answer, and the engine is asked for no progress.
    const plain = await post(`${url}/retrieve`, frame(3, 'retrieve', { query: 'slow', _meta: { progressToken: 'tok' } }), { Origin: app, Accept: 'application/json' });
    expect(plain.type).toBe('application/json');
    expect(JSON.parse(plain.chunks.map((c) => c.text).join(''))).toEqual({ jsonrpc: '2.0', id: 3, result: { hits: [{ id: 'slow', score: 1 }] } });
    const second = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.params?.query === 'slow')[1];
    expect(second.params._meta.progressToken).toBeUndefined();

    expect((await post(`${url}/retrieve`, asked, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(`${url}/retrieve`, asked, {})).status).toBe(403); // no Origin: not the app
    expect((await post(url.replace(/\/[0-9a-f]{32}\//, '/0123/'), asked, { Origin: app })).status).toBe(404);
    expect((await post(url.replace('relay-0.localhost', 'rebound.example'), asked, { Origin: app })).status).toBe(421);
    expect((await post(url.replace('relay-0.', 'relay-1.'), asked, { Origin: app })).status).toBe(421); // no engine 1
  }, 20_000);
});
