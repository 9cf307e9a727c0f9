/**
 * Visible text of an HTML document, parsed with DOMParser into an inert document that is never
 * attached to the live page (scripts in it do not run, images do not load). script, style,
 * template and noscript are dropped; block elements become line breaks. The same code runs in
 * Node for `rcp-in-page index`, over any DOMParser (the CLI passes linkedom's).
 */
const DROP = 'script, style, template, noscript, head > :not(title), iframe, object, embed, svg, canvas';
const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TD', 'TH', 'TR', 'UL']);
const HEADING = /^H([1-6])$/;
// Node.TEXT_NODE / ELEMENT_NODE, spelled out: Node is not a global outside browsers.
const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

export interface VisibleTextOptions {
  /**
   * Write each h1–h6 as a Markdown heading line (`## Installing`), so the chunker files the
   * passages below it under that heading (the section path of their context).
   */
  headings?: boolean;
}

/** The visible text of `root` (inert: nothing is run or loaded), with block elements as line breaks. */
export function visibleText(root: Element, o: VisibleTextOptions = {}): string {
  for (const n of root.querySelectorAll(DROP)) n.remove();
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === TEXT_NODE) {
      parts.push((node.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const tag = (node as Element).tagName.toUpperCase();
    const level = o.headings ? HEADING.exec(tag)?.[1] : undefined;
    if (level !== undefined) {
      const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text) parts.push(`\n${'#'.repeat(Number(level))} ${text}\n`);
      return;
    }
    const block = BLOCK.has(tag);
    if (block) parts.push('\n');
    for (const c of node.childNodes) walk(c);
    if (block) parts.push('\n');
  };
  walk(root);
  return parts
    .join('')
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function htmlToText(html: string): { title?: string; text: string } {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const title = doc.querySelector('title')?.textContent?.trim() || doc.querySelector('h1')?.textContent?.trim() || undefined;
  for (const n of doc.querySelectorAll(DROP)) n.remove();
  return { title, text: doc.body ? visibleText(doc.body) : '' };
}
