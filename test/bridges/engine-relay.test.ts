import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineRelay } from '../../bridges/engine-relay.ts';

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
    else out(m.id, { hits: [{ id: 'x', score: 1 }] });
  }
});
function out(id, result) { process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n'); }
`;

let relay: EngineRelay | undefined;
afterEach(async () => relay?.close());

const frame = (id: number | undefined, method: string, params: object = {}) => JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params });

describe('EngineRelay over stdio', () => {
  it('restarts a crashed engine with backoff and passes a cancel on to the engine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    const script = join(dir, 'engine.cjs');
    const log = join(dir, 'log');
    writeFileSync(script, ENGINE);
    writeFileSync(log, '');
    const lines: string[] = [];
    relay = new EngineRelay([{ id: 'toy', transport: 'stdio', command: [process.execPath, script, log] }], { diag: (l) => lines.push(l) });

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
