/**
 * Query-term highlighting as DOM nodes: text nodes and `<mark>` elements built with textContent,
 * never HTML. Terms match case-insensitively by a stem-like prefix, so "whale" marks "whales".
 */
import { el } from './dom.ts';

const STOP = new Set('a an and are as at be but by for from has have he her his i in is it its of on or that the their they this to was were will with you'.split(' '));

/** The query's distinct content words, lowercased. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOP.has(w)))];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A prefix that survives common English inflection (whale/whales/whaling → whal). */
const stemPrefix = (t: string) => (t.length > 5 ? t.slice(0, t.length - 2) : t.length > 3 ? t.slice(0, t.length - 1) : t);

/** One regex matching any term (at a word start, followed by more letters); undefined when none. */
export function termPattern(terms: readonly string[]): RegExp | undefined {
  if (terms.length === 0) return undefined;
  const alts = [...new Set(terms.map(stemPrefix))].sort((a, b) => b.length - a.length).map(escapeRe);
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alts.join('|')})[\\p{L}\\p{N}]*`, 'giu');
}

/** Appends `text` to `parent` with every term match wrapped in `<mark>`; returns the number of marks. */
export function appendHighlighted(parent: Node, text: string, pattern: RegExp | undefined, markClass = 'term'): number {
  if (!pattern) {
    parent.appendChild(document.createTextNode(text));
    return 0;
  }
  let last = 0;
  let marks = 0;
  pattern.lastIndex = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index ?? 0;
    if (at > last) parent.appendChild(document.createTextNode(text.slice(last, at)));
    parent.appendChild(el('mark', { class: markClass }, m[0]));
    last = at + m[0].length;
    marks++;
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  return marks;
}

/**
 * A window of about `size` characters of `text` around the first term match (word-aligned), so a
 * long chunk shows the part that matched. Returns the window and whether text was cut on each side.
 */
export function snippetWindow(text: string, pattern: RegExp | undefined, size = 360): { text: string; before: boolean; after: boolean } {
  if (text.length <= size) return { text, before: false, after: false };
  let first = 0;
  if (pattern) {
    pattern.lastIndex = 0;
    const m = pattern.exec(text);
    pattern.lastIndex = 0;
    if (m) first = m.index;
  }
  let start = Math.max(0, first - Math.floor(size / 3));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1;
  }
  let end = Math.min(text.length, start + size);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + size / 2) end = space;
  }
  return { text: text.slice(start, end), before: start > 0, after: end < text.length };
}
