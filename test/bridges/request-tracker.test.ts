import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ORIGIN, profileOrigin } from '../../bridges/profile-origin.ts';
import { RequestTracker } from '../../bridges/request-tracker.ts';

const req = (id: unknown, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method });

describe('stdio request tracker (issue 10, defect 3)', () => {
  it('only a successful shutdown ends the session', () => {
    const t = new RequestTracker();
    t.sent(req(1, 'shutdown'));
    t.answered('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}');
    expect(t.shutdownAnswered).toBe(false);
    t.sent(req(1, 'ping')); // the rejected shutdown's id, reused
    t.answered('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(t.shutdownAnswered).toBe(false);
    t.sent(JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'index/add' }, { jsonrpc: '2.0', id: 3, method: 'shutdown' }]));
    expect(t.pending).toBe(2);
    t.answered('[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"ids":[]}}]');
    expect(t.shutdownAnswered).toBe(true);
    expect(t.pending).toBe(0);
  });

  it('drained() waits for every request in flight', async () => {
    const t = new RequestTracker();
    t.sent(req('a', 'index/add'));
    let done = false;
    const drained = t.drained(60_000).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    t.answered('{"jsonrpc":"2.0","id":"a","result":{}}');
    await drained;
    expect(done).toBe(true);
  });
});

describe('profile origin (issue 10, defect 1)', () => {
  it('a fresh profile gets the fixed default; a remembered origin or legacy port is kept, never rewritten', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'rcp-origin-'));
    expect(profileOrigin(fresh)).toBe(DEFAULT_ORIGIN);
    expect(profileOrigin(fresh)).toBe(DEFAULT_ORIGIN);
    const legacy = mkdtempSync(join(tmpdir(), 'rcp-origin-'));
    writeFileSync(join(legacy, 'rcp-origin-port'), '41234');
    expect(profileOrigin(legacy)).toBe('http://localhost:41234');
    expect(readFileSync(join(legacy, 'rcp-origin-port'), 'utf8')).toBe('41234');
    const broken = mkdtempSync(join(tmpdir(), 'rcp-origin-'));
    writeFileSync(join(broken, 'rcp-origin'), 'https://evil.example');
    expect(() => profileOrigin(broken)).toThrow(/refusing to start/);
    expect(readFileSync(join(broken, 'rcp-origin'), 'utf8')).toBe('https://evil.example');
  });
});
