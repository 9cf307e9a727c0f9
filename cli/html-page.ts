/**
 * One built HTML page as a document: its visible text (the page's own import code, with h1–h6 as
 * Markdown heading lines so passages are filed under their section), its title, and metadata from
 * `<meta name|property content>`, `lang`, and `data-*` attributes of `<html>`, `<body>` and the
 * content root. The content root is `[data-rcp-body]`, else `<main>`, else `[role=main]`, else
 * `<article>`, else `<body>`: site chrome (navigation, footers) repeated on every page would
 * otherwise match every query. Elements marked `data-rcp-ignore` are left out. Headings whose
 * anchor is not the one `<rcp-search>` would derive (their slug) are kept in `meta.sectionIds`.
 */
import { slug } from '../src/element/anchor.ts';
import { visibleText } from '../src/import/html-text.ts';

export interface HtmlPage {
  title?: string;
  text: string;
  meta: Record<string, unknown>;
}

/** `<meta>` names that describe the page for machines, not its content. */
const SKIP_META = new Set(['viewport', 'generator', 'robots', 'theme-color', 'color-scheme', 'referrer', 'format-detection', 'csrf-token', 'google-site-verification']);

const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Parses `html` with `parser` (DOMParser in a page, linkedom's in Node). */
export function htmlPage(html: string, parser: DOMParser): HtmlPage {
  const doc = parser.parseFromString(html, 'text/html');
  const meta: Record<string, unknown> = {};
  for (const m of doc.querySelectorAll('meta[content]')) {
    const name = (m.getAttribute('name') ?? m.getAttribute('property') ?? '').trim().toLowerCase();
    const content = m.getAttribute('content')?.trim();
    if (!name || !content || SKIP_META.has(name) || name.startsWith('twitter:')) continue;
    if (name === 'keywords') meta.tags = content.split(',').map((k) => k.trim()).filter(Boolean);
    else meta[name.startsWith('og:') ? camel(name.slice(3)) : camel(name)] ??= content;
  }
  const lang = doc.documentElement?.getAttribute('lang')?.trim();
  if (lang) meta.lang = lang.toLowerCase();
  const root = doc.querySelector('[data-rcp-body]') ?? doc.querySelector('main') ?? doc.querySelector('[role=main]') ?? doc.querySelector('article') ?? doc.body;
  for (const el of [doc.documentElement, doc.body, root]) {
    if (!el) continue;
    for (const a of Array.from(el.attributes)) {
      if (a.name.startsWith('data-') && a.name !== 'data-rcp-body' && a.value.trim()) meta[camel(a.name.slice(5))] = a.value.trim();
    }
  }
  const title = doc.querySelector('title')?.textContent?.trim() || root?.querySelector('h1')?.textContent?.trim() || undefined;
  for (const n of doc.querySelectorAll('[data-rcp-ignore]')) n.remove();
  const text = root ? visibleText(root, { headings: true }) : '';
  // After visibleText, which drops what is not shown (svg, script…): headings read as it wrote them.
  const ids = root ? sectionIds(root, title) : undefined;
  if (ids && meta.sectionIds === undefined) meta.sectionIds = ids;
  return { title, text, meta };
}

/**
 * The anchors of the page's headings that `<rcp-search>` would not derive from their text
 * (src/element/anchor.ts), by that slug: the heading's own id, else the id (or old-style `name`) of
 * an element inside it, else its permalink's target (`<a href="#…">` inside it: Sphinx, MkDocs),
 * else the id of the `<section>` it opens, else '' for no anchor. Headings anchored at their slug, as most generators
 * make them, cost nothing; so does the heading that repeats the title (never a section). The first
 * of two headings with the same slug wins (a passage's heading path names text, not position).
 */
function sectionIds(root: Element, title: string | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const h of root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const text = (h.textContent ?? '').replace(/\s+/g, ' ').trim();
    const s = slug(text);
    if (!s || text === title || seen.has(s)) continue;
    seen.add(s);
    const id = (h.getAttribute('id') || innerAnchor(h) || sectionId(h) || '').trim();
    if (id !== s) out[s] = id;
  }
  return Object.keys(out).length ? out : undefined;
}

function innerAnchor(h: Element): string | undefined {
  const named = h.querySelector('[id]')?.getAttribute('id') ?? h.querySelector('a[name]')?.getAttribute('name');
  if (named) return named;
  const href = h.querySelector('a[href^="#"]')?.getAttribute('href')?.slice(1);
  if (!href) return undefined;
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}

function sectionId(h: Element): string | undefined {
  const p = h.parentElement;
  return p && p.tagName.toUpperCase() === 'SECTION' && p.firstElementChild === h ? p.getAttribute('id') ?? undefined : undefined;
}
