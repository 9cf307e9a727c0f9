/**
 * A query written in a script no indexed word uses matches nothing by its words. That is an empty
 * sparse list, not an error, and `usage.notes` says why (issue 45, bad input), so a client can
 * tell "nothing matched" from "nothing here can match". Scripts are told by Unicode block (BMP
 * only): the analyzer keeps every script's letters in its terms, so an index holds a script exactly
 * when some term starts in one of its blocks, which a binary search of each segment's sorted term
 * dictionary tells without a scan.
 */
import type { IndexView } from '../index/view.ts';

/** Script name → its blocks (first and last code point). */
const SCRIPTS: readonly (readonly [string, readonly (readonly [number, number])[]])[] = [
  ['Latin', [[0x41, 0x5a], [0x61, 0x7a], [0xc0, 0x24f], [0x1e00, 0x1eff]]],
  ['Greek', [[0x370, 0x3ff], [0x1f00, 0x1fff]]],
  ['Cyrillic', [[0x400, 0x52f]]],
  ['Armenian', [[0x530, 0x58f]]],
  ['Hebrew', [[0x590, 0x5ff]]],
  ['Arabic', [[0x600, 0x6ff], [0x750, 0x77f]]],
  ['Devanagari', [[0x900, 0x97f]]],
  ['Bengali', [[0x980, 0x9ff]]],
  ['Gurmukhi', [[0xa00, 0xa7f]]],
  ['Gujarati', [[0xa80, 0xaff]]],
  ['Oriya', [[0xb00, 0xb7f]]],
  ['Tamil', [[0xb80, 0xbff]]],
  ['Telugu', [[0xc00, 0xc7f]]],
  ['Kannada', [[0xc80, 0xcff]]],
  ['Malayalam', [[0xd00, 0xd7f]]],
  ['Sinhala', [[0xd80, 0xdff]]],
  ['Thai', [[0xe00, 0xe7f]]],
  ['Lao', [[0xe80, 0xeff]]],
  ['Tibetan', [[0xf00, 0xfff]]],
  ['Myanmar', [[0x1000, 0x109f]]],
  ['Georgian', [[0x10a0, 0x10ff]]],
  ['Hangul', [[0x1100, 0x11ff], [0xac00, 0xd7af]]],
  ['Ethiopic', [[0x1200, 0x139f]]],
  ['Cherokee', [[0x13a0, 0x13ff], [0xab70, 0xabbf]]], // lowercased, its capitals become the supplement's small letters
  ['Khmer', [[0x1780, 0x17ff]]],
  ['Mongolian', [[0x1800, 0x18af]]],
  ['Kana', [[0x3040, 0x30ff]]],
  ['Han', [[0x3400, 0x4dbf], [0x4e00, 0x9fff]]],
];

/** The scripts of the query's letters, in the order the table lists them. */
export function queryScripts(text: string): string[] {
  const found = new Set<string>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x41) continue;
    const s = SCRIPTS.find(([, blocks]) => blocks.some(([a, b]) => cp >= a && cp <= b));
    if (s) found.add(s[0]);
  }
  return SCRIPTS.map(([name]) => name).filter((n) => found.has(n));
}

/** Some term of `terms` (sorted) starts in [a, b]. */
function startsIn(terms: readonly string[], a: number, b: number): boolean {
  const lo = String.fromCharCode(a);
  let l = 0;
  let h = terms.length;
  while (l < h) {
    const m = (l + h) >>> 1;
    if (terms[m] < lo) l = m + 1;
    else h = m;
  }
  return l < terms.length && terms[l].charCodeAt(0) <= b;
}

/** The query's scripts that no term of the index starts with (none for an empty index: nothing to compare). */
export function unseenScripts(text: string, view: IndexView): string[] {
  if (!view.segments.some((s) => s.lex.terms.length > 0)) return [];
  const blocks = new Map(SCRIPTS);
  return queryScripts(text).filter((name) => !view.segments.some((s) => blocks.get(name)!.some(([a, b]) => startsIn(s.lex.terms, a, b))));
}

/** The `usage.notes` line for those scripts, or undefined. */
export function unseenScriptNote(text: string, view: IndexView): string | undefined {
  const unseen = unseenScripts(text, view);
  if (unseen.length === 0) return undefined;
  const list = unseen.length === 1 ? `${unseen[0]} script` : `${unseen.slice(0, -1).join(', ')} and ${unseen.at(-1)} scripts`;
  return `the query is written in the ${list}, which no indexed document uses: its words match nothing here (a cross-lingual dense model still compares meanings)`;
}
