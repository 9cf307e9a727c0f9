/**
 * The document panel: a document's full text (x-inpage/document) with the cited passage marked
 * and scrolled into view, query terms highlighted inside it. Without the vendor extension it shows
 * just the hit's passage. Text only, via text nodes.
 */
import { getDocument, hasInpage } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { appendHighlighted, termPattern } from './highlight.ts';
import type { HitTarget } from './hits-view.ts';

export interface DocPanel {
  open(target: HitTarget, terms: string[], opener?: HTMLElement): Promise<void>;
  close(): void;
}

export function mountDocPanel(client: RcpClient): DocPanel {
  const panel = byId('doc-panel');
  const title = byId('doc-title');
  const meta = byId('doc-meta');
  const body = byId('doc-body');
  let returnFocus: HTMLElement | undefined;
  let seq = 0;

  const close = () => {
    panel.hidden = true;
    body.replaceChildren();
    returnFocus?.focus();
    returnFocus = undefined;
  };
  byId('doc-close').addEventListener('click', close);
  panel.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') close();
  });

  const render = (text: string, start: number | undefined, end: number | undefined, terms: string[]) => {
    const pattern = termPattern(terms);
    body.replaceChildren();
    if (start === undefined || end === undefined || start < 0 || end > text.length || start >= end) {
      appendHighlighted(body, text, pattern);
      return;
    }
    body.append(text.slice(0, start));
    const passage = el('mark', { class: 'passage', id: 'doc-passage', attrs: { tabindex: -1 } });
    appendHighlighted(passage, text.slice(start, end), pattern);
    body.append(passage, text.slice(end));
    passage.scrollIntoView({ block: 'center' });
  };

  return {
    async open(target, terms, opener) {
      const mine = ++seq;
      returnFocus = opener ?? returnFocus;
      panel.hidden = false;
      title.textContent = target.title;
      meta.textContent = target.docId;
      body.replaceChildren('Loading…');
      title.focus();
      if (!hasInpage(client)) {
        meta.textContent = `${target.docId} · showing the matching passage only (this engine does not offer full documents)`;
        render(target.text, undefined, undefined, terms);
        return;
      }
      try {
        const doc = await getDocument(client, target.docId);
        if (mine !== seq) return;
        const parts = [target.docId, `${doc.text.length.toLocaleString('en')} characters`, `${doc.chunks.length} passages`];
        for (const k of ['author', 'year', 'source']) if (doc.meta[k] !== undefined) parts.push(String(doc.meta[k]));
        meta.textContent = parts.join(' · ');
        render(doc.text, target.start, target.end, terms);
      } catch (e) {
        if (mine !== seq) return;
        body.replaceChildren(errorView(e, 'Could not open the document'));
      }
    },
    close,
  };
}
