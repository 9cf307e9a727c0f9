/**
 * Visible text of an HTML document, parsed with DOMParser into an inert document that is never
 * attached to the live page (scripts in it do not run, images do not load). script, style,
 * template and noscript are dropped; block elements become line breaks.
 */
const DROP = 'script, style, template, noscript, head > :not(title), iframe, object, embed, svg, canvas';
const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TD', 'TH', 'TR', 'UL']);

export function htmlToText(html: string): { title?: string; text: string } {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const title = doc.querySelector('title')?.textContent?.trim() || doc.querySelector('h1')?.textContent?.trim() || undefined;
  for (const n of doc.querySelectorAll(DROP)) n.remove();
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      parts.push((node.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const block = BLOCK.has((node as Element).tagName);
    if (block) parts.push('\n');
    for (const c of node.childNodes) walk(c);
    if (block) parts.push('\n');
  };
  if (doc.body) walk(doc.body);
  const text = parts
    .join('')
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, text };
}
