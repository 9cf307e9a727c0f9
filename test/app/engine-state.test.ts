import { describe, expect, it } from 'vitest';
import { engineReports } from '../../src/app/engine-state.ts';
import type { EngineOutcome } from '../../src/client/federation/federation.ts';
import type { Hit } from '../../src/protocol/types.ts';

const hit = (id: string, engine: string): Hit => ({ id, score: 1, meta: { engine } });

describe('engineReports', () => {
  it('names each state and why, and shares the hits by the engine that ranked each best', () => {
    const outcomes: EngineOutcome[] = [
      { id: 'local', state: 'ok', hits: 5, ms: 3 },
      { id: 'a', state: 'ok', hits: 4, ms: 20, note: '1 malformed hit dropped' },
      { id: 'b', state: 'timeout', hits: 0, ms: 4000, error: { code: -32014, message: 'took too long' } },
      { id: 'c', state: 'failed', hits: 0, ms: 2, error: { code: -32010, message: 'engine unreachable' } },
      { id: 'd', state: 'skipped', hits: 0, ms: 0, note: 'does not advertise retrieve' },
    ];
    const r = engineReports(outcomes, [hit('1', 'local'), hit('2', 'a'), hit('3', 'local'), hit('4', 'local')]);
    expect(r.map((e) => [e.id, e.health, e.hits, e.share])).toEqual([
      ['local', 'ok', 3, 0.75],
      ['a', 'degraded', 1, 0.25],
      ['b', 'degraded', 0, 0],
      ['c', 'unreachable', 0, 0],
      ['d', 'degraded', 0, 0],
    ]);
    expect(r[0].why).toBeUndefined();
    expect(r[1].why).toBe('1 malformed hit dropped');
    expect(r[2].why).toBe('timed out after 4000 ms: took too long (RCP -32014)');
    expect(r[3].why).toBe('engine unreachable (RCP -32010)');
    expect(r[4].why).toBe('skipped: does not advertise retrieve');
  });

  it('gives every engine a zero share of an empty answer', () => {
    expect(engineReports([{ id: 'local', state: 'ok', hits: 0, ms: 1 }], [])[0]).toEqual({ id: 'local', health: 'ok', hits: 0, share: 0 });
  });
});
