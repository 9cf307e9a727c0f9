import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadRcpSchema } from '../test/support/rcp-schema.ts';

const root = join(import.meta.dirname, '..');

/** Runs `rcp:stdio` with `lines` on stdin (then EOF) and returns what it wrote to stdout. */
async function runBridge(lines: string[], args: string[] = []): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn('node', ['--import', 'tsx', 'scripts/rcp-stdio.ts', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  for (const line of lines) child.stdin.write(`${line}\n`);
  child.stdin.end();
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  return { stdout, stderr, code };
}

const req = (id: unknown, method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

test('a scripted stdio session: every frame validates against the normative schema', async () => {
  const schema = loadRcpSchema(); // throws loudly when ../shared/rcp/schema is missing
  const script = [
    req(0, 'info'),
    '',
    req(1, 'ping', { nonce: 7 }),
    req(2, 'retrieve', { query: 'x', k: 1 }),
    req(3, 'initialize', { protocolVersion: 1, client: { name: 'schema-test', version: '1' }, capabilities: { log: {} } }),
    req(4, 'index/add', { documents: [{ id: 'd1', text: 'Call me Ishmael. Some years ago, never mind how long precisely.', meta: { title: 'Loomings' } }, { text: 'A document without an id.' }] }),
    req(5, 'retrieve', { query: 'Ishmael', k: 3, includeText: true, _meta: { progressToken: 'pt' } }),
    req(6, 'retrieve', { query: 'x', k: -1 }),
    req(7, 'retrieve', { query: 'x', k: 10, candidateK: 2 }),
    req(8, 'does/not/exist'),
    req(9, 'index/delete', { ids: ['d1', 'missing'] }),
    '{not json',
    JSON.stringify([{ jsonrpc: '2.0', id: 10, method: 'ping' }, { jsonrpc: '2.0', method: 'ping' }, 5]),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 999 } }),
    req(11, 'shutdown'),
  ];
  const { stdout, stderr, code } = await runBridge(script);
  expect(code, stderr).toBe(0);
  const frames = stdout.split('\n').filter((l) => l !== '');
  expect(stdout.endsWith('\n')).toBe(true);
  for (const f of frames) expect(schema.frame(f), f).toEqual([]);
  const msgs = frames.map((f) => JSON.parse(f));
  const byId = new Map(msgs.filter((m) => !Array.isArray(m) && 'id' in m).map((m) => [m.id, m]));
  const methods: Record<number, string> = { 0: 'info', 1: 'ping', 3: 'initialize', 4: 'index/add', 5: 'retrieve', 9: 'index/delete', 11: 'shutdown' };
  for (const [id, method] of Object.entries(methods)) {
    const m = byId.get(Number(id));
    expect(m?.result, `response ${id}`).toBeDefined();
    if (method !== 'shutdown') expect(schema.result(method, m.result), method).toEqual([]);
  }
  expect(byId.get(2).error.code).toBe(-32001);
  expect(byId.get(6).error.code).toBe(-32602);
  expect(byId.get(7).error.code).toBe(-32602);
  expect(byId.get(8).error.code).toBe(-32004);
  expect(byId.get(null).error.code).toBe(-32700);
  expect(byId.get(5).result.hits[0].id).toContain('d1');
  expect(byId.get(9).result.deleted).toBe(1);
  expect(msgs.find(Array.isArray)).toHaveLength(2);
});

test('EOF is an implicit shutdown and --profile keeps the index between runs', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-e2e-profile-'));
  try {
    const init = req(1, 'initialize', { protocolVersion: 1 });
    const first = await runBridge([init, req(2, 'index/add', { documents: [{ id: 'keep', text: 'persistence across bridge runs with a profile' }] })], ['--profile', profile]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('"ids":["keep"]');
    const second = await runBridge([init, req(2, 'retrieve', { query: 'persistence profile', k: 1 })], ['--profile', profile]);
    expect(second.code, second.stderr).toBe(0);
    const hit = JSON.parse(second.stdout.trim().split('\n').at(-1)!);
    expect(hit.result.hits[0].id).toContain('keep');
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});
