/**
 * Renders retrieve hits: source title (a button that opens the document), position in the
 * document, a snippet around the best match with the engine's matches marked, and per-stage score bars. Text via textContent only.
 */
import type { Hit } from '../protocol/types.ts';
import { el } from './dom.ts';
import { appendMarked, hitMatches, snippetWindow, type Span } from './highlight.ts';
import { scoreBars, stageMaxima } from './score-bars.ts';

/** Where a hit points: its document and the `[start, end)` it cites. */
export interface HitTarget {
  docId: string;
  title: string;
  start?: number;
  end?: number;
  text: string;
  /** What the engine matched in `text` (offsets relative to `text`). */
  spans: readonly Span[];
}

export function hitTarget(h: Hit): HitTarget {
  const docId = h.chunk?.docId ?? h.citation?.source ?? String(h.id);
  const title = h.citation?.title ?? (typeof h.meta?.title === 'string' ? h.meta.title : docId);
  return { docId, title, start: h.citation?.start, end: h.citation?.end, text: h.text ?? '', spans: hitMatches(h).spans };
}

function position(h: Hit): string {
  const parts: string[] = [];
  if (h.citation?.page !== undefined) parts.push(`page ${h.citation.page}`);
  if (h.chunk) parts.push(`passage ${h.chunk.index + 1}`);
  if (h.citation?.start !== undefined && h.citation.end !== undefined) parts.push(`characters ${h.citation.start.toLocaleString('en')}–${h.citation.end.toLocaleString('en')}`);
  const meta = h.meta ?? {};
  // Federated hits (§16.3) name the engines that returned them.
  const engines = Array.isArray(meta.engines) ? meta.engines.filter((e) => typeof e === 'string') : typeof meta.engine === 'string' ? [meta.engine] : [];
  if (engines.length) parts.unshift(`from ${engines.join(' + ')}`);
  if (typeof meta.author === 'string') parts.push(meta.author);
  if (typeof meta.year === 'number') parts.push(String(meta.year));
  return parts.join(' · ');
}

export function renderHits(list: HTMLOListElement, hits: readonly Hit[], open: (t: HitTarget, opener: HTMLElement) => void): void {
  const maxima = stageMaxima(hits);
  list.replaceChildren(
    ...hits.map((h, i) => {
      const target = hitTarget(h);
      const snip = snippetWindow(target.text, target.spans);
      const p = el('p', { class: 'hit-text' });
      if (snip.before) p.append('… ');
      appendMarked(p, snip.text, target.spans, snip.start);
      if (snip.after) p.append(' …');
      const btn = el('button', { class: 'hit-title linklike', attrs: { type: 'button', 'aria-describedby': `hit-pos-${i}` } }, target.title);
      btn.addEventListener('click', () => open(target, btn));
      return el(
        'li',
        { class: 'hit', attrs: { 'data-doc-id': target.docId } },
        el('div', { class: 'hit-head' }, btn, el('span', { class: 'hit-score', attrs: { title: 'fused score' } }, h.score.toFixed(3))),
        el('div', { class: 'hit-pos', id: `hit-pos-${i}` }, position(h)),
        p,
        scoreBars(h, maxima),
      );
    }),
  );
}
