/**
 * A small bar chart (plain DOM/CSS) of a hit's per-stage scores, each named after its stage.
 * Stages have different scales (BM25 is unbounded, cosine is ≤ 1), so each bar is relative to that
 * stage's best score among the shown hits; the number next to it is the raw score. Bookkeeping
 * scores (before rerank, before MMR) are explained in words instead (score-explain.ts).
 */
import type { Hit } from '../protocol/types.ts';
import { el } from './dom.ts';
import { STAGE_LABELS } from './score-explain.ts';

export const STAGES = ['dense', 'sparse', 'rerank'] as const;

/** Each stage's largest score over `hits` (for scaling bars). */
export function stageMaxima(hits: readonly Hit[]): Record<string, number> {
  const max: Record<string, number> = {};
  for (const h of hits) {
    for (const [stage, v] of Object.entries(h.scores ?? {})) {
      if (typeof v === 'number' && Number.isFinite(v)) max[stage] = Math.max(max[stage] ?? 0, v);
    }
  }
  return max;
}

export function scoreBars(hit: Hit, maxima: Record<string, number>): HTMLElement | null {
  const entries = Object.entries(hit.scores ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && (e[0] in STAGE_LABELS || !['recall', 'relevance'].includes(e[0])));
  if (entries.length === 0) return null;
  entries.sort((a, b) => {
    const ia = STAGES.indexOf(a[0] as (typeof STAGES)[number]);
    const ib = STAGES.indexOf(b[0] as (typeof STAGES)[number]);
    return (ia === -1 ? 9 : ia) - (ib === -1 ? 9 : ib);
  });
  return el(
    'dl',
    { class: 'score-bars', attrs: { 'aria-label': 'Scores per stage' } },
    ...entries.flatMap(([stage, v]) => {
      const max = maxima[stage] ?? 0;
      const pct = max > 0 ? Math.max(2, Math.min(100, (v / max) * 100)) : 2;
      const bar = el('span', { class: `bar bar-${stage}` });
      bar.style.width = `${pct.toFixed(1)}%`;
      return [el('dt', {}, STAGE_LABELS[stage] ?? stage), el('dd', {}, el('span', { class: 'bar-track' }, bar), el('span', { class: 'bar-value' }, v.toFixed(3)))];
    }),
  );
}
