/**
 * Renders retrieve hits grouped by document: the document's best passage first (title button that
 * opens it, position, a snippet around the best match with the engine's matches marked, labelled
 * per-stage score bars and why it is here in plain words), then "N more passages from this
 * document" behind a disclosure. Order follows the best passage of each document. Text via
 * textContent only.
 */
import type { Hit } from '../protocol/types.ts';
import { el } from './dom.ts';
import { appendMarked, hitMatches, snippetWindow, type Span } from './highlight.ts';
import { explainHit, ranksBeforeRerank } from './score-explain.ts';
import { scoreBars, stageMaxima } from './score-bars.ts';
import { count, plural } from './format.ts';

/** Where a hit points: its document and the `[start, end)` it cites. */
export interface HitTarget {
  docId: string;
  /** The hit's id (a passage `docId#index`, or the document), when it came from this engine: what `feedback` and `graph` name. */
  hitId?: string;
  title: string;
  start?: number;
  end?: number;
  text: string;
  /** What the engine matched in `text` (offsets relative to `text`). */
  spans: readonly Span[];
}

/** What the request asked for, so the explanations can name it; `actions` adds controls to each hit (feedback). */
export interface HitsContext {
  rerankMethod?: string;
  actions?: (hit: Hit, target: HitTarget) => HTMLElement | null;
}

/** The engine label that marks this page's own hits in federated results (engines-panel.ts). */
export const LOCAL_ENGINE_ID = 'this page';

export function hitTarget(h: Hit): HitTarget {
  const docId = h.chunk?.docId ?? h.citation?.source ?? String(h.id);
  const title = h.citation?.title ?? (typeof h.meta?.title === 'string' ? h.meta.title : docId);
  const from = engines(h);
  // A hit only another engine returned has an id of that engine's: nothing here to give feedback on.
  const local = from.length === 0 || from.includes(LOCAL_ENGINE_ID);
  return { docId, ...(local ? { hitId: String(h.id) } : {}), title, start: h.citation?.start, end: h.citation?.end, text: h.text ?? '', spans: hitMatches(h).spans };
}

function engines(h: Hit): string[] {
  const meta = h.meta ?? {};
  return Array.isArray(meta.engines) ? meta.engines.filter((e): e is string => typeof e === 'string') : typeof meta.engine === 'string' ? [meta.engine] : [];
}

function position(h: Hit): string {
  const parts: string[] = [];
  if (h.citation?.page !== undefined) parts.push(`page ${h.citation.page}`);
  if (h.chunk) parts.push(`passage ${h.chunk.index + 1}`);
  if (h.citation?.start !== undefined && h.citation.end !== undefined) parts.push(`characters ${count(h.citation.start)}–${count(h.citation.end)}`);
  const meta = h.meta ?? {};
  // Federated hits (§16.3) name the engines that returned them.
  const from = engines(h);
  if (from.length) parts.unshift(`from ${from.join(' + ')}`);
  if (typeof meta.author === 'string') parts.push(meta.author);
  if (typeof meta.year === 'number') parts.push(String(meta.year));
  return parts.join(' · ');
}

/** The words as they appear in the passage (not the engine's stems): each matched term's first occurrence. */
function matchedWords(h: Hit, target: HitTarget): string[] {
  const { terms } = hitMatches(h);
  const words = terms.map((t) => t);
  const seen = new Set<number>();
  for (const [s, e, term] of target.spans) {
    if (seen.has(term) || term >= words.length) continue;
    seen.add(term);
    words[term] = target.text.slice(s, e).toLocaleLowerCase();
  }
  return [...new Set(words)];
}

/** Hits grouped by document (and engine, for federated results), in order of each group's best hit. */
export function groupByDocument(hits: readonly Hit[]): { key: string; items: { hit: Hit; rank: number }[] }[] {
  const groups = new Map<string, { key: string; items: { hit: Hit; rank: number }[] }>();
  hits.forEach((hit, i) => {
    const key = `${engines(hit).join('+')}\u0000${hitTarget(hit).docId}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, items: [] }));
    g.items.push({ hit, rank: i + 1 });
  });
  return [...groups.values()];
}

export function renderHits(list: HTMLOListElement, hits: readonly Hit[], open: (t: HitTarget, opener: HTMLElement) => void, ctx: HitsContext = {}): void {
  const maxima = stageMaxima(hits);
  const before = ranksBeforeRerank(hits);
  const passage = (h: Hit, rank: number) => {
    const target = hitTarget(h);
    const snip = snippetWindow(target.text, target.spans);
    const p = el('p', { class: 'hit-text' });
    if (snip.before) p.append('… ');
    appendMarked(p, snip.text, target.spans, snip.start);
    if (snip.after) p.append(' …');
    const btn = el('button', { class: 'hit-title linklike', attrs: { type: 'button', 'aria-describedby': `hit-pos-${rank}` } }, target.title);
    btn.addEventListener('click', () => open(target, btn));
    const why = explainHit(h, { terms: matchedWords(h, target), rank, rankBeforeRerank: before[rank - 1], rerankMethod: ctx.rerankMethod });
    return el(
      'li',
      { class: 'hit', attrs: { 'data-doc-id': target.docId, 'data-id': String(h.id), 'data-rank': rank } },
      el('div', { class: 'hit-head' }, btn, el('span', { class: 'hit-rank', attrs: { title: 'Place in the results' } }, `#${rank}`)),
      el('div', { class: 'hit-pos', id: `hit-pos-${rank}` }, position(h)),
      p,
      scoreBars(h, maxima),
      why.length ? el('div', { class: 'why', attrs: { role: 'group', 'aria-label': 'Why this result' } }, ...why.map((w) => el('p', {}, w))) : null,
      ctx.actions?.(h, target),
    );
  };
  list.replaceChildren(
    ...groupByDocument(hits).map(({ items }) => {
      const [first, ...rest] = items;
      const li = passage(first.hit, first.rank);
      li.classList.add('hit-group');
      if (rest.length > 0) {
        li.append(
          el(
            'details',
            { class: 'more-passages' },
            el('summary', {}, `${plural(rest.length, 'more passage')} from this document`),
            el('ol', { class: 'more-list' }, ...rest.map((r) => passage(r.hit, r.rank))),
          ),
        );
      }
      return li;
    }),
  );
}

/** Marks (or unmarks) the shown results of a document as quarantined: dimmed until the results refresh. */
export function markQuarantined(list: HTMLOListElement, docId: string, held: boolean): void {
  for (const li of list.querySelectorAll<HTMLElement>(':scope > li.hit-group')) if (li.dataset.docId === docId) li.classList.toggle('is-quarantined', held);
}
