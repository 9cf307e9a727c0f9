import { describe, expect, it } from 'vitest';
import { StreamWire } from '../../src/conformance/stream-wire.ts';
import { diffAnswers, parseRecording, sessionsOf, toNdjsonRecording } from '../../src/app/learn/recording.ts';
import { replay } from '../../src/app/learn/replay.ts';
import { engineServer } from '../support/engine-session.ts';

const f = (dir: 'out' | 'in', frame: unknown, session = 'page', t = 0) => ({ t, dir, session, frame: JSON.stringify(frame) });

describe('recordings', () => {
  it('round-trip as NDJSON, frames byte for byte', () => {
    const r = { server: { name: 's', version: '1' }, frames: [f('out', { jsonrpc: '2.0', id: 1, method: 'ping', params: { nonce: 'é\n' } }), f('in', { jsonrpc: '2.0', id: 1, result: { nonce: 'é\n' } })] };
    const text = toNdjsonRecording(r);
    expect(text.split('\n').filter(Boolean)).toHaveLength(3);
    const back = parseRecording(text);
    expect(back.frames.map((x) => x.frame)).toEqual(r.frames.map((x) => x.frame));
    expect(back.server).toEqual(r.server);
    expect(() => parseRecording('{"format":"rcp-recording/1"}\n{oops\n')).toThrow('line 2: not JSON');
    // The inspector's plain NDJSON copy reads as frames: requests out, answers in.
    expect(parseRecording('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n').frames.map((x) => x.dir)).toEqual(['out', 'in']);
  });

  it('diffs answers, ignoring timings and snapshots', () => {
    expect(diffAnswers({ result: { hits: [{ id: 'a', score: 1 }], usage: { latencyMs: 3 }, indexVersion: '7' } }, { result: { hits: [{ id: 'a', score: 1 }], usage: { latencyMs: 9 }, indexVersion: '8' } })).toEqual([]);
    // initialize's model state (loading then, ready now) is not a different answer; its capabilities are.
    const init = (state: string, maxK: number) => ({ result: { capabilities: { retrieve: { maxK } }, _meta: { conformance: 'L2', models: { embed: { state } } } } });
    expect(diffAnswers(init('loading', 50), init('ready', 50))).toEqual([]);
    expect(diffAnswers(init('loading', 50), init('ready', 60))).toEqual([{ path: 'result.capabilities.retrieve.maxK', recorded: 50, replayed: 60 }]);
    expect(diffAnswers({ result: { hits: [{ id: 'a' }, { id: 'b' }] } }, { result: { hits: [{ id: 'b' }] } })).toEqual([
      { path: 'result.hits[0].id', recorded: 'a', replayed: 'b' },
      { path: 'result.hits[1]', recorded: { id: 'b' }, replayed: undefined },
    ]);
  });

  it('replays against our engine: same engine, same answers; another index: differences, never an exception', async () => {
    const server = await engineServer();
    await server.engine.add([{ id: 'w', text: 'the white whale' }]);
    const frames = [
      f('out', { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: 1 } }, 'console'),
      f('out', { jsonrpc: '2.0', id: 1, method: 'retrieve', params: { query: 'whale', k: 3, mode: 'sparse' } }),
      f('in', { jsonrpc: '2.0', id: 1, result: { hits: [{ id: 'w', score: 0.28768208622932434, unit: 'chunk', scores: { sparse: 0.28768208622932434 }, citation: { source: 'w', start: 0, end: 15 }, chunk: { docId: 'w', index: 0 }, text: 'the white whale', trust: { level: 'untrusted' } }], usage: { candidates: 1, reranked: 0, latencyMs: 1 } } }),
      f('out', { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 99 } }),
      f('out', { jsonrpc: '2.0', id: 2, method: 'does/not/exist', params: {} }),
    ];
    const rec = { frames };
    expect(sessionsOf(rec)).toEqual([{ session: 'page', sent: 3 }, { session: 'console', sent: 1 }]);
    const wire = () => new StreamWire({ transport: server.connect(), kind: 'port', label: 't', quietMs: 50 });
    const steps = await replay(rec, 'page', wire());
    expect(steps.map((s) => s.label)).toEqual(['initialize (added: the recording starts mid-session)', 'retrieve #1', 'notifications/cancel (notification)', 'does/not/exist #2']);
    expect(steps[1].differences).toEqual([]);
    expect(steps[3].problem).toBe('the recording holds no answer to compare with');
    await server.engine.add([{ id: 'w2', text: 'another whale' }]);
    const again = await replay(rec, 'page', wire());
    expect(again[1].differences.length).toBeGreaterThan(0);
  });
});
