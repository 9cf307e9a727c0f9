/**
 * Marking what the engine matched: text nodes and `<mark>` elements built with textContent, never
 * HTML. The spans come from the engine (`x-inpage-matches`, its own analysis of query and text);
 * the page never guesses matches with an analyzer of its own.
 */
import type { Hit } from '../protocol/types.ts';
import { el } from './dom.ts';

/** `[start, end, term]` spans in a text (term = index into the matched terms). */
export type Span = readonly [number, number, number];

/** The hit field and request flag the engine uses for matches (src/engine/query/matches.ts). */
export const MATCHES_FIELD = 'x-inpage-matches';

/** The engine's matches for a hit, or none (a server without the extension marks nothing). */
export function hitMatches(h: Hit): { terms: string[]; spans: Span[] } {
  const m = (h as Hit & Record<string, unknown>)[MATCHES_FIELD] as { terms?: unknown; spans?: unknown } | undefined;
  if (!m || !Array.isArray(m.terms) || !Array.isArray(m.spans)) return { terms: [], spans: [] };
  const spans = m.spans.filter((s): s is Span => Array.isArray(s) && s.length === 3 && s.every((n) => Number.isInteger(n)) && s[0] < s[1]);
  return { terms: m.terms.filter((t): t is string => typeof t === 'string'), spans };
}

/**
 * Appends `text` to `parent` with the spans (relative to `text`, sorted, non-overlapping) wrapped in
 * `<mark>`; `offset` shifts spans given relative to a larger text. Returns the number of marks.
 */
export function appendMarked(parent: Node, text: string, spans: readonly Span[], offset = 0, markClass = 'term'): number {
  let last = 0;
  let marks = 0;
  for (const [s0, e0] of spans) {
    const s = s0 - offset;
    const e = Math.min(text.length, e0 - offset);
    if (e <= 0 || s < last || s >= text.length) continue;
    if (s > last) parent.appendChild(document.createTextNode(text.slice(last, s)));
    parent.appendChild(el('mark', { class: markClass }, text.slice(s, e)));
    last = e;
    marks++;
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  return marks;
}

/**
 * Where the best match is: the start of the `size`-character window holding the most distinct
 * matched terms (then the most marks), so a snippet shows the part where the query's words meet.
 */
export function bestMatchAt(spans: readonly Span[], size: number): number | undefined {
  let best: { at: number; distinct: number; count: number } | undefined;
  let j = 0;
  for (let i = 0; i < spans.length; i++) {
    if (j < i) j = i;
    while (j + 1 < spans.length && spans[j + 1][1] - spans[i][0] <= size) j++;
    const window = spans.slice(i, j + 1);
    const distinct = new Set(window.map((s) => s[2])).size;
    if (!best || distinct > best.distinct || (distinct === best.distinct && window.length > best.count)) best = { at: spans[i][0], distinct, count: window.length };
  }
  return best?.at;
}

/**
 * A window of about `size` characters of `text` around its best match (word-aligned), so a long
 * chunk shows the part that matched. Returns the window, where it starts, and whether text was cut.
 */
export function snippetWindow(text: string, spans: readonly Span[], size = 360): { text: string; start: number; before: boolean; after: boolean } {
  if (text.length <= size) return { text, start: 0, before: false, after: false };
  const first = bestMatchAt(spans, Math.floor(size * 0.6)) ?? 0;
  let start = Math.max(0, first - Math.floor(size / 4));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1;
  }
  let end = Math.min(text.length, start + size);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + size / 2) end = space;
  }
  return { text: text.slice(start, end), start, before: start > 0, after: end < text.length };
}
