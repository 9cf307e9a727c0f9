import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

/**
 * Progress passes through federation (issue 48): a stdio bridge federates a second stdio bridge
 * (spawned and relayed by the first, bridges/engine-relay.ts + relay-server.ts); a federated
 * retrieve with a progressToken gets progress from both engines under the caller's token, before
 * the answer.
 */
const root = join(import.meta.dirname, '..');
const req = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

test("a federated retrieve streams every engine's progress (the relayed one's included) under the caller's token, then answers", async () => {
  test.setTimeout(90_000);
  const dir = mkdtempSync(join(tmpdir(), 'fedprog-'));
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts', '--no-models', '--profile', join(dir, 'a'), '--federate-stdio', `node --import tsx bridges/rcp-stdio.ts --no-models --profile ${join(dir, 'b')}`], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const frames: Record<string, any>[] = [];
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) frames.push(JSON.parse(buf.slice(0, i)));
  });
  const answer = (id: number) => expect.poll(() => frames.find((f) => f.id === id), { timeout: 60_000 }).toBeDefined();
  try {
    child.stdin.write(`${req(1, 'initialize', { protocolVersion: 1, capabilities: { streaming: {} } })}\n`);
    await answer(1);
    child.stdin.write(`${req(2, 'index/add', { documents: [{ id: 'a', text: 'whales sing under the sea' }] })}\n`);
    await answer(2);
    child.stdin.write(`${req(3, 'retrieve', { query: 'whales', k: 3, mode: 'sparse', _meta: { federate: true, progressToken: 'T1' } })}\n`);
    await answer(3);
    const final = frames.findIndex((f) => f.id === 3);
    expect(frames[final].result.hits[0].id).toBe('a');
    const progress = frames.slice(0, final).filter((f) => f.method === 'notifications/progress').map((f) => f.params);
    expect(progress.every((p) => p.progressToken === 'T1')).toBe(true);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((x, y) => x - y)); // never goes back
    expect(Math.max(...values)).toBeLessThanOrEqual(1);
    // The relayed engine's own stages came through the relay, named by engine.
    expect(progress.some((p) => p.message === 'stdio:rcp-stdio: recall' && p.stage === 'recall')).toBe(true);
    expect(progress.some((p) => /^local: /.test(p.message))).toBe(true);
    expect(progress.some((p) => /^stdio:rcp-stdio: answered/.test(p.message))).toBe(true);
    expect(frames.filter((f) => f.method === 'notifications/progress' && frames.indexOf(f) > final)).toEqual([]);
  } finally {
    child.stdin.end();
    await new Promise((ok) => child.once('exit', ok));
    rmSync(dir, { recursive: true, force: true });
  }
});
