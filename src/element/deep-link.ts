/**
 * A deep link to a passage: its page's URL plus a text fragment (`#:~:text=start,end`, WICG
 * Scroll-to-Text-Fragment), which browsers that support it scroll to and highlight, and others
 * ignore. The fragment quotes one block of the passage (a line of its text: block elements and
 * Markdown paragraphs become lines at index time), so its words appear contiguously on the page;
 * Markdown syntax and tags are dropped first, since the page shows them rendered.
 */

/** Words quoted at each end of a long block; a block of at most twice as many is quoted whole. */
const EDGE_WORDS = 4;

/** The visible words of one line of indexed text (heading markers, emphasis, link targets, tags removed). */
export function visibleWords(line: string): string[] {
  const plain = line
    .replace(/<[^>]*>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*(#{1,6}|[-*+]|\d+[.)]|>)\s+/, '')
    .replace(/[*_`~]+/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[e]!);
  return plain.split(/\s+/).filter(Boolean);
}

/** Percent-encodes a fragment directive term: also `-`, `,` and `&`, which the syntax reserves. */
const encodeTerm = (s: string): string => encodeURIComponent(s).replace(/-/g, '%2D').replace(/,/g, '%2C').replace(/&/g, '%26');

/** The `text=` directive for a passage, or undefined when it has no quotable words. */
export function textDirective(passage: string): string | undefined {
  const lines = passage.split('\n');
  // The first block that is not a heading (headings repeat across pages and sections), else any.
  const block = lines.map((l) => ({ heading: /^\s*#{1,6}\s/.test(l), words: visibleWords(l) })).filter((b) => b.words.length > 0);
  const pick = block.find((b) => !b.heading && b.words.length >= 3) ?? block[0];
  if (!pick) return undefined;
  const w = pick.words;
  if (w.length <= EDGE_WORDS * 2) return `text=${encodeTerm(w.join(' '))}`;
  return `text=${encodeTerm(w.slice(0, EDGE_WORDS).join(' '))},${encodeTerm(w.slice(-EDGE_WORDS).join(' '))}`;
}

/**
 * `url` with a text fragment for `passage` (any existing fragment is replaced), after `anchor`
 * (the section's element id) when given: `page#anchor:~:text=…` scrolls to the quoted text where
 * text fragments are followed, and to the section elsewhere.
 */
export function deepLink(url: string, passage: string, anchor?: string): string {
  const directive = textDirective(passage);
  const base = url.replace(/#.*$/, '');
  const id = anchor ? encodeURIComponent(anchor) : '';
  return directive ? `${base}#${id}:~:${directive}` : id ? `${base}#${id}` : base;
}
