/**
 * The results of `<rcp-search>` as DOM: hits grouped by page (best page first, its passages in
 * rank order), as Pagefind shows sub-results: each page's title with its count of matching
 * sections, then each section's heading path and excerpt, an ARIA option whose deep link goes to
 * the section's anchor and the quoted text (anchor.ts, deep-link.ts). Matched words are `<mark>`ed
 * from the engine's own match spans (`x-inpage-matches`). Built with text nodes only: nothing from
 * the index is ever parsed as HTML.
 */
import type { Hit } from '../protocol/types.ts';
import { sectionOf } from './anchor.ts';
import { deepLink } from './deep-link.ts';

/** One option as shown: a passage (where it links) or a recent search (the query it runs). */
export interface ShownOption {
  id: string;
  href?: string;
  query?: string;
}

/** What the view asks of its element: words, and the anchor of a section. */
export interface ResultsViewOptions {
  /** "3 sections", in the element's language. */
  sections(n: number): string;
  /** The id the page gives `heading` (`meta`: the page's metadata), or undefined for none. */
  sectionId(heading: string, pageUrl: string, meta: Readonly<Record<string, unknown>>): string | undefined;
}

interface Matches {
  spans: [number, number, number][];
}

/** Longest passage excerpt shown, in characters (centred on the first match). */
const EXCERPT = 220;

function excerpt(text: string, spans: readonly [number, number, number][]): { text: string; offset: number } {
  if (text.length <= EXCERPT) return { text, offset: 0 };
  const first = spans[0]?.[0] ?? 0;
  let from = Math.max(0, Math.min(first - EXCERPT / 3, text.length - EXCERPT));
  const space = text.lastIndexOf(' ', from);
  if (space > 0 && from - space < 20) from = space + 1;
  return { text: text.slice(from, from + EXCERPT), offset: from };
}

/** The passage text with its matches marked (part `mark`). */
function marked(text: string, matches: Matches | undefined, doc: Document): DocumentFragment {
  const out = doc.createDocumentFragment();
  const spans = matches?.spans ?? [];
  // Heading markers blanked out, not removed: match spans index the text as stored.
  const { text: shown, offset } = excerpt(text.replace(/^#{1,6} +/gm, (m) => ' '.repeat(m.length)), spans);
  if (offset > 0) out.append('… ');
  let at = 0;
  for (const [s, e] of spans) {
    const start = s - offset;
    const end = e - offset;
    if (start < at || end > shown.length) continue;
    out.append(shown.slice(at, start));
    const m = doc.createElement('mark');
    m.setAttribute('part', 'mark');
    m.textContent = shown.slice(start, end);
    out.append(m);
    at = end;
  }
  out.append(shown.slice(at));
  if (offset + shown.length < text.length) out.append(' …');
  return out;
}

const hitUrl = (h: Hit): string | undefined => {
  const u = h.meta?.url ?? h.citation?.uri;
  return typeof u === 'string' ? u : undefined;
};

/**
 * Renders `hits` into `list` (a listbox) and returns the passages in display order. `prefix`
 * makes ids unique per element instance.
 */
export function renderResults(list: HTMLElement, hits: readonly Hit[], prefix: string, view: ResultsViewOptions): ShownOption[] {
  const doc = list.ownerDocument;
  const groups = new Map<string, Hit[]>();
  for (const h of hits) {
    const key = h.citation?.source ?? String(h.id);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(h);
  }
  const shown: ShownOption[] = [];
  const items: HTMLElement[] = [];
  let n = 0;
  for (const [source, group] of groups) {
    const first = group[0];
    const url = hitUrl(first) ?? '';
    const titleText = first.citation?.title ?? (typeof first.meta?.title === 'string' ? first.meta.title : source);
    const g = groupOf(doc, `${prefix}-g${items.length}`, titleText, view.sections(group.length));
    for (const h of group) {
      const id = `${prefix}-o${n++}`;
      const section = sectionOf(h.chunk?.context);
      const href = url ? deepLink(url, h.text ?? '', section ? view.sectionId(section.heading, url, h.meta ?? {}) : undefined) : '';
      const opt = option(doc, id, 'passage', href);
      if (section) {
        const s = doc.createElement('span');
        s.setAttribute('part', 'section');
        s.dir = 'auto';
        s.textContent = section.path;
        opt.append(s, ' ');
      }
      const text = doc.createElement('span');
      text.dir = 'auto';
      text.append(marked(h.text ?? '', (h as Hit & { 'x-inpage-matches'?: Matches })['x-inpage-matches'], doc));
      opt.append(text);
      g.append(opt);
      shown.push({ id, href });
    }
    items.push(g);
  }
  list.replaceChildren(...items);
  return shown;
}

/** Renders recent searches into `list` under `title`; returns them as options that run their query. */
export function renderRecent(list: HTMLElement, queries: readonly string[], prefix: string, title: string): ShownOption[] {
  const doc = list.ownerDocument;
  if (queries.length === 0) {
    list.replaceChildren();
    return [];
  }
  const g = groupOf(doc, `${prefix}-recent`, title);
  const shown = queries.map((query, i) => {
    const opt = option(doc, `${prefix}-r${i}`, 'recent');
    opt.dir = 'auto';
    opt.textContent = query;
    g.append(opt);
    return { id: opt.id, query };
  });
  list.replaceChildren(g);
  return shown;
}

function groupOf(doc: Document, titleId: string, titleText: string, countText?: string): HTMLElement {
  const g = doc.createElement('div');
  g.setAttribute('role', 'group');
  g.setAttribute('part', 'group');
  g.setAttribute('aria-labelledby', titleId);
  const title = doc.createElement('div');
  title.id = titleId;
  title.setAttribute('part', 'group-title');
  const name = doc.createElement('span');
  name.setAttribute('part', 'page-title');
  name.dir = 'auto';
  name.textContent = titleText;
  title.append(name);
  if (countText) {
    const c = doc.createElement('span');
    c.setAttribute('part', 'count');
    c.textContent = countText;
    title.append(' ', c);
  }
  g.append(title);
  return g;
}

function option(doc: Document, id: string, part: string, href?: string): HTMLElement {
  const opt = doc.createElement('div');
  opt.id = id;
  opt.setAttribute('role', 'option');
  opt.setAttribute('aria-selected', 'false');
  opt.setAttribute('part', part);
  // The deep link, for the page's scripts and for tests (following it is the element's: Enter or a click).
  if (href) opt.dataset.href = href;
  return opt;
}
