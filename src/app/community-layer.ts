/**
 * Communities on the map of your documents: "Colour by community" colours each dot by its
 * community in the engine's passage graph (RCP `graph`, op `communities`: Louvain, levels 0 =
 * broadest), the legend labels each community by its distinctive terms, and a click on one lists
 * its passages, most central first, with the engine's extractive summary (the same op asked for
 * that one community, `_meta["x-inpage-community"]`, with the passages' text). Shown only when the
 * engine serves `communities`.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import type { GraphCommunity } from '../protocol/types.ts';
import { colour, type MapColouring, type MapPaint, type MapPoint } from './corpus-map-view.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { count, plural } from './format.ts';
import type { HitTarget } from './hits-view.ts';
import { passageItems, type ListedPassage } from './passage-list.ts';

/** Communities asked for (and coloured); smaller ones are grey. */
export const COLOURED_COMMUNITIES = 50;
/** Communities named in the legend. */
const LEGEND_COMMUNITIES = 12;
/** Terms in a community's label. */
const LABEL_TERMS = 4;
const OTHER = 'hsl(0 0% 62%)';

const terms = (c: GraphCommunity): string[] => (Array.isArray(c['x-inpage-terms']) ? c['x-inpage-terms'].filter((t): t is string => typeof t === 'string') : []);
const size = (c: GraphCommunity): number => (typeof c['x-inpage-size'] === 'number' ? c['x-inpage-size'] : 0);
/** A community's label: its most distinctive terms. */
export const communityLabel = (c: GraphCommunity): string => terms(c).slice(0, LABEL_TERMS).join(', ') || c.id;

export function mountCommunityLayer(client: RcpClient, open: (t: HitTarget, opener: HTMLElement) => void): MapColouring | undefined {
  if (client.capabilities?.graph?.ops.includes('communities') !== true) return undefined;
  const controls = byId('map-colouring');
  const by = byId<HTMLSelectElement>('map-colour');
  const levelField = byId('map-level-field');
  const levelSelect = byId<HTMLSelectElement>('map-level');
  const detail = byId('community-detail');
  const title = byId('community-title');
  const about = byId('community-summary');
  const passages = byId<HTMLOListElement>('community-passages');
  controls.hidden = false;
  const listeners: (() => void)[] = [];
  const changed = () => {
    levelField.hidden = by.value !== 'community';
    detail.hidden = true;
    for (const fn of listeners) fn();
  };
  by.addEventListener('change', changed);
  levelSelect.addEventListener('change', changed);

  /** The levels this index has, offered once known (0 is the broadest). */
  const offerLevels = (n: number) => {
    if (levelSelect.options.length === n) return;
    const keep = Math.min(Number(levelSelect.value) || 0, n - 1);
    levelSelect.replaceChildren(...Array.from({ length: n }, (_, l) => el('option', { attrs: { value: l } }, l === 0 ? '0 (broadest)' : l === n - 1 ? `${l} (finest)` : String(l))));
    levelSelect.value = String(Math.max(0, keep));
  };

  let detailCtrl: AbortController | undefined;
  const list = async (c: GraphCommunity, index: number, opener: HTMLElement) => {
    detailCtrl?.abort();
    const ctrl = new AbortController();
    detailCtrl = ctrl;
    detail.hidden = false;
    detail.dataset.community = c.id;
    title.replaceChildren(el('span', { class: 'swatch', attrs: { style: `background:${colour(index)}` } }), ` ${communityLabel(c)} — ${plural(size(c), 'passage')}`);
    about.textContent = c.summary;
    passages.replaceChildren();
    try {
      const r = await client.request('graph', { op: 'communities', _meta: { 'x-inpage-community': c.id, 'x-inpage-text': true } }, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      const listed = (r.communities?.[0]?.['x-inpage-passages'] ?? []) as ListedPassage[];
      passages.replaceChildren(...passageItems(listed, open, (p) => (p.id === listed[0]?.id ? 'most central' : '')));
      if (size(c) > listed.length) passages.append(el('li', { class: 'muted' }, `and ${plural(size(c) - listed.length, 'more passage')}`));
    } catch (e) {
      if (!ctrl.signal.aborted) passages.replaceChildren(el('li', {}, errorView(e, 'Could not list the community’s passages (the index may have changed: recompute the map)')));
    }
    opener.setAttribute('aria-expanded', 'true');
  };

  const paint = async (m: { indexVersion?: string }, signal: AbortSignal): Promise<MapPaint | undefined> => {
    const level = Number(levelSelect.value) || 0;
    const r = await client.request('graph', { op: 'communities', level, k: COLOURED_COMMUNITIES }, { signal });
    if (m.indexVersion !== undefined && r.indexVersion !== m.indexVersion) return undefined;
    const levels = typeof r._meta?.levels === 'number' ? r._meta.levels : 1;
    offerLevels(levels);
    const communities = r.communities ?? [];
    const rank = new Map(communities.map((c, i) => [c.id, i]));
    const total = typeof r._meta?.communities === 'number' ? r._meta.communities : communities.length;
    const legend = communities.slice(0, LEGEND_COMMUNITIES).map((c, i) => {
      const b = el(
        'button',
        { class: 'linklike', attrs: { type: 'button', 'data-community': c.id, 'aria-controls': 'community-detail', 'aria-expanded': 'false' } },
        el('span', { class: 'swatch', attrs: { style: `background:${colour(i)}` } }),
        ` ${communityLabel(c)} (${count(size(c))})`,
      );
      b.addEventListener('click', () => {
        for (const other of b.closest('ul')?.querySelectorAll('button[aria-expanded]') ?? []) other.setAttribute('aria-expanded', 'false');
        void list(c, i, b);
      });
      return el('li', {}, b);
    });
    if (total > LEGEND_COMMUNITIES) legend.push(el('li', { class: 'muted' }, `and ${plural(total - LEGEND_COMMUNITIES, 'more community', 'more communities')}${total > COLOURED_COMMUNITIES ? ' (the smallest in grey)' : ''}`));
    const byCommunity = (p: MapPoint) => (p.community !== undefined ? rank.get(p.community) : undefined);
    return {
      name: 'community',
      colour: (p) => {
        const i = byCommunity(p);
        return i === undefined ? OTHER : colour(i);
      },
      label: (p) => {
        const i = byCommunity(p);
        return i === undefined ? undefined : communityLabel(communities[i]);
      },
      legend,
      colouredBy: `its community in the passage graph (${plural(total, 'community', 'communities')} at level ${level} of ${levels}, found by Louvain; click one below to list its passages)`,
    };
  };

  return {
    level: () => (by.value === 'community' ? Number(levelSelect.value) || 0 : undefined),
    paint,
    onChange: (fn) => void listeners.push(fn),
  };
}
