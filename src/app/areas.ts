/**
 * The playground's areas: one shown at a time in <main> (Search, Documents, Import, Models, Engines,
 * Learn RCP), chosen with the navigation links and kept in the address (`?panel=documents`), and
 * the inspector pane, which stays open beside any area (`&inspector=1`, remembered per browser).
 * Areas are found in the DOM (`#areas-nav a[data-area]` + `#area-NAME`), so adding one is markup
 * only. A link click pushes a history entry (Back returns to the previous area); a switch the page
 * makes itself (typing a query elsewhere shows Search) replaces the entry.
 */
import { byId } from './dom.ts';

export const DEFAULT_AREA = 'search';
const INSPECTOR_KEY = 'rcp-playground:inspector';

export interface Areas {
  /** Shows area `name` (unknown names show Search); `push` adds a history entry. */
  show(name: string, push?: boolean): void;
  current(): string;
  /** Called after every switch with the area now shown. */
  onShow(fn: (name: string) => void): void;
  setInspector(open: boolean): void;
  inspectorOpen(): boolean;
}

/** The area and inspector state of a query string (pure, for the address). */
export function readLayoutState(search: string): { panel?: string; inspector: boolean } {
  const p = new URLSearchParams(search);
  return { panel: p.get('panel') ?? undefined, inspector: p.get('inspector') === '1' };
}

/** `search` with `panel` and `inspector` replaced; other parameters (the search) are kept. */
export function writeLayoutState(search: string, s: { panel: string; inspector: boolean }): string {
  const p = new URLSearchParams(search);
  if (s.panel === DEFAULT_AREA) p.delete('panel');
  else p.set('panel', s.panel);
  if (s.inspector) p.set('inspector', '1');
  else p.delete('inspector');
  const qs = p.toString();
  return qs ? `?${qs}` : '';
}

export function mountAreas(): Areas {
  const links = [...document.querySelectorAll<HTMLAnchorElement>('#areas-nav a[data-area]')];
  const names = links.map((a) => a.dataset.area!);
  const pane = byId('inspector-pane');
  const toggle = byId<HTMLButtonElement>('inspector-toggle');
  const listeners: ((name: string) => void)[] = [];
  let shown = DEFAULT_AREA;

  const address = (push: boolean) => {
    const next = `${location.pathname}${writeLayoutState(location.search, { panel: shown, inspector: !pane.hidden })}${location.hash}`;
    if (next === `${location.pathname}${location.search}${location.hash}`) return;
    if (push) history.pushState({ panel: shown }, '', next);
    else history.replaceState(history.state, '', next);
  };

  const apply = (name: string) => {
    shown = names.includes(name) ? name : DEFAULT_AREA;
    for (const n of names) byId(`area-${n}`).hidden = n !== shown;
    for (const a of links) {
      if (a.dataset.area === shown) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    document.body.dataset.area = shown;
    for (const fn of listeners) fn(shown);
  };

  const setInspector = (open: boolean) => {
    pane.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('inspector-open', open);
    localStorage.setItem(INSPECTOR_KEY, open ? '1' : '0');
    address(false);
  };

  const areas: Areas = {
    show(name, push = false) {
      if (name === shown && names.includes(name)) return;
      apply(name);
      address(push);
    },
    current: () => shown,
    onShow: (fn) => void listeners.push(fn),
    setInspector,
    inspectorOpen: () => !pane.hidden,
  };

  // Plain links (they work without script too, and open in a new tab on a middle click).
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const a = (ev.target as Element | null)?.closest<HTMLAnchorElement>('a[data-area], a[data-area-link]');
    if (!a) return;
    ev.preventDefault();
    areas.show(a.dataset.area ?? a.dataset.areaLink ?? DEFAULT_AREA, true);
  });
  toggle.addEventListener('click', () => setInspector(pane.hidden));
  byId('inspector-close').addEventListener('click', () => {
    setInspector(false);
    toggle.focus();
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-open-inspector]')) b.addEventListener('click', () => setInspector(true));
  window.addEventListener('popstate', () => apply(readLayoutState(location.search).panel ?? DEFAULT_AREA));

  const initial = readLayoutState(location.search);
  apply(initial.panel ?? DEFAULT_AREA);
  setInspector(initial.inspector || localStorage.getItem(INSPECTOR_KEY) === '1');
  return areas;
}
