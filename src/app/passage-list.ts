/**
 * A list of passages the engine named (graph neighbours, a community's members): each its title
 * (a button that opens the passage in the document panel), where it lies, why it is listed, and the
 * start of its text. Text via text nodes only.
 */
import { el } from './dom.ts';
import { clip } from './format.ts';
import type { HitTarget } from './hits-view.ts';

/** A passage as the graph answers name it. */
export interface ListedPassage {
  /** Its hit id, `docId#index` (or the document id for a one-passage document). */
  id: string;
  doc: string;
  title?: string;
  start?: number;
  end?: number;
  text?: string;
}

/** Characters of a passage's text shown in a list. */
const PREVIEW_CHARS = 220;

/** The passage's place in its document, 1-based, read from its hit id. */
export function passageNumber(id: string, doc: string): number | undefined {
  if (!id.startsWith(`${doc}#`)) return undefined;
  const n = Number(id.slice(doc.length + 1));
  return Number.isInteger(n) ? n + 1 : undefined;
}

export function passageTarget(p: ListedPassage): HitTarget {
  return { docId: p.doc, hitId: p.id, title: p.title ?? p.doc, start: p.start, end: p.end, text: p.text ?? '', spans: [] };
}

/** Items for `passages`, each opening itself with `open`; `why(p)` says why it is listed. */
export function passageItems(passages: readonly ListedPassage[], open: (t: HitTarget, opener: HTMLElement) => void, why?: (p: ListedPassage) => string): HTMLLIElement[] {
  return passages.map((p) => {
    const target = passageTarget(p);
    const button = el('button', { class: 'linklike', attrs: { type: 'button', dir: 'auto' } }, target.title);
    button.addEventListener('click', () => open(target, button));
    const n = passageNumber(p.id, p.doc);
    const where = [n !== undefined ? `passage ${n}` : undefined, why?.(p)].filter(Boolean).join(' · ');
    return el(
      'li',
      { class: 'passage-item', attrs: { 'data-id': p.id, 'data-doc-id': p.doc } },
      button,
      where ? el('span', { class: 'muted' }, ` ${where}`) : null,
      p.text ? el('p', { class: 'passage-preview', attrs: { dir: 'auto' } }, clip(p.text.replace(/\s+/g, ' ').trim(), PREVIEW_CHARS)) : null,
    );
  });
}
