/**
 * What the Engines panel says of each engine after an answer: its state (ok, degraded,
 * unreachable, and why) and its share of the answer's hits. A hit counts for the engine that
 * ranked it best (`meta.engine`, src/client/federation/fuse-hits.ts), so the shares add up to 100%.
 */
import type { EngineOutcome } from '../client/federation/federation.ts';
import type { Hit } from '../protocol/types.ts';

export type EngineHealth = 'ok' | 'degraded' | 'unreachable';

export interface EngineReport {
  id: string;
  health: EngineHealth;
  /** Why it is degraded or unreachable. */
  why?: string;
  /** Hits of the fused answer this engine ranked best, and their share of the answer (0..1). */
  hits: number;
  share: number;
}

/** ok: answered cleanly; degraded: answered with a note, was skipped, or ran out of time; unreachable: failed. */
export function healthOf(o: EngineOutcome): { health: EngineHealth; why?: string } {
  if (o.state === 'ok') return o.note ? { health: 'degraded', why: o.note } : { health: 'ok' };
  if (o.state === 'skipped') return { health: 'degraded', why: `skipped: ${o.note ?? 'no reason given'}` };
  const why = `${o.error?.message ?? 'no answer'}${o.error ? ` (RCP ${o.error.code})` : ''}`;
  return o.state === 'timeout' ? { health: 'degraded', why: `timed out after ${o.ms} ms: ${why}` } : { health: 'unreachable', why };
}

export function engineReports(outcomes: readonly EngineOutcome[], hits: readonly Hit[]): EngineReport[] {
  const counts = new Map<string, number>();
  for (const h of hits) {
    const engine = h.meta?.engine;
    if (typeof engine === 'string') counts.set(engine, (counts.get(engine) ?? 0) + 1);
  }
  return outcomes.map((o) => {
    const n = counts.get(o.id) ?? 0;
    return { id: o.id, ...healthOf(o), hits: n, share: hits.length ? n / hits.length : 0 };
  });
}
