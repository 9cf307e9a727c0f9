/**
 * One built HTML page as a document: its visible text (the page's own import code, with h1–h6 as
 * Markdown heading lines so passages are filed under their section), its title, and metadata from
 * `<meta name|property content>`, `lang`, and `data-*` attributes of `<html>`, `<body>` and the
 * content root. The content root is `[data-rcp-body]`, else `<main>`, else `[role=main]`, else
 * `<article>`, else `<body>`: site chrome (navigation, footers) repeated on every page would
 * otherwise match every query. Elements marked `data-rcp-ignore` are left out.
 */
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
  return { title, text: root ? visibleText(root, { headings: true }) : '', meta };
}
