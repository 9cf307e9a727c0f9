/**
 * The results of `<rcp-search>` as DOM: hits grouped by page (best page first, its passages in
 * rank order), each passage an ARIA option whose matched words are `<mark>`ed from the engine's
 * own match spans (`x-inpage-matches`). Built with text nodes only: nothing from the index is ever
 * parsed as HTML.
 */
import type { Hit } from '../protocol/types.ts';
import { deepLink } from './deep-link.ts';

/** One passage as shown: where it links, for keyboard and pointer navigation. */
export interface ShownPassage {
  id: string;
  href: string;
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
export function renderResults(list: HTMLElement, hits: readonly Hit[], prefix: string): ShownPassage[] {
  const doc = list.ownerDocument;
  const groups = new Map<string, Hit[]>();
  for (const h of hits) {
    const key = h.citation?.source ?? String(h.id);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(h);
  }
  const shown: ShownPassage[] = [];
  const items: HTMLElement[] = [];
  let n = 0;
  for (const [source, group] of groups) {
    const first = group[0];
    const url = hitUrl(first) ?? '';
    const g = doc.createElement('div');
    g.setAttribute('role', 'group');
    g.setAttribute('part', 'group');
    const title = doc.createElement('div');
    const titleId = `${prefix}-g${items.length}`;
    title.id = titleId;
    title.setAttribute('part', 'group-title');
    title.textContent = first.citation?.title ?? (typeof first.meta?.title === 'string' ? first.meta.title : source);
    g.setAttribute('aria-labelledby', titleId);
    g.append(title);
    for (const h of group) {
      const id = `${prefix}-o${n++}`;
      const opt = doc.createElement('div');
      opt.id = id;
      opt.setAttribute('role', 'option');
      opt.setAttribute('aria-selected', 'false');
      opt.setAttribute('part', 'passage');
      const section = h.chunk?.context?.split(' › ').slice(1).join(' › ');
      if (section) {
        const s = doc.createElement('span');
        s.setAttribute('part', 'section');
        s.textContent = section;
        opt.append(s, ' ');
      }
      const text = doc.createElement('span');
      text.append(marked(h.text ?? '', (h as Hit & { 'x-inpage-matches'?: Matches })['x-inpage-matches'], doc));
      opt.append(text);
      g.append(opt);
      shown.push({ id, href: url ? deepLink(url, h.text ?? '') : '' });
    }
    items.push(g);
  }
  list.replaceChildren(...items);
  return shown;
}
