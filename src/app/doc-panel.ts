/**
 * The document panel: a window of a document's text (x-inpage/document with a range) around the
 * cited passage, the passage marked and scrolled into view with the engine's matches inside it;
 * earlier and later text loads in slices as the reader scrolls, so opening a 30 MB document costs
 * as much as opening a short one. Without the vendor extension it shows just the hit's passage.
 * Text only, via text nodes. Below 1024 px it is a drawer over the page (style.css).
 */
import { getDocumentRange, hasInpage } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { count, plural } from './format.ts';
import { appendMarked } from './highlight.ts';
import type { HitTarget } from './hits-view.ts';

/** Characters shown around the passage at first, and added per scroll step. */
export const DOC_WINDOW_BEFORE = 8_000;
export const DOC_WINDOW_AFTER = 24_000;
export const DOC_SLICE = 32_000;

export interface DocPanel {
  open(target: HitTarget, opener?: HTMLElement): Promise<void>;
  close(): void;
  /** Parts of the panel beside the text (related passages, feedback) follow what is open. */
  onOpen(fn: (target: HitTarget) => void): void;
  onClose(fn: () => void): void;
}

export function mountDocPanel(client: RcpClient): DocPanel {
  const panel = byId('doc-panel');
  const title = byId('doc-title');
  const meta = byId('doc-meta');
  const body = byId('doc-body');
  let returnFocus: HTMLElement | undefined;
  let seq = 0;
  const opened: ((target: HitTarget) => void)[] = [];
  const closed: (() => void)[] = [];
  /** The loaded range of the open document, and its length. */
  let view: { id: string; start: number; end: number; length: number; text: HTMLElement; loading: boolean } | undefined;

  const earlier = el('button', { class: 'doc-more linklike', attrs: { type: 'button' } }, 'Show earlier text');
  const later = el('button', { class: 'doc-more linklike', attrs: { type: 'button' } }, 'Show more text');

  const close = () => {
    panel.hidden = true;
    document.body.classList.remove('drawer-open');
    body.replaceChildren();
    view = undefined;
    for (const fn of closed) fn();
    returnFocus?.focus();
    returnFocus = undefined;
  };
  byId('doc-close').addEventListener('click', close);
  panel.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') close();
  });

  const syncButtons = () => {
    earlier.hidden = !view || view.start <= 0;
    later.hidden = !view || view.end >= view.length;
  };

  /** Loads the next slice before or after what is shown; keeps the reader's place when prepending. */
  const extend = async (dir: 'before' | 'after') => {
    const v = view;
    if (!v || v.loading) return;
    const offset = dir === 'before' ? Math.max(0, v.start - DOC_SLICE) : v.end;
    const length = dir === 'before' ? v.start - offset : Math.min(DOC_SLICE, v.length - v.end);
    if (length <= 0) return;
    v.loading = true;
    try {
      const part = await getDocumentRange(client, v.id, offset, length);
      if (view !== v) return;
      if (dir === 'before') {
        const height = body.scrollHeight;
        v.text.prepend(part.text);
        v.start = part.offset;
        body.scrollTop += body.scrollHeight - height;
      } else {
        v.text.append(part.text);
        v.end = part.offset + part.text.length;
      }
    } catch (e) {
      if (view === v) body.append(errorView(e, 'Could not load more of the document'));
    } finally {
      v.loading = false;
      syncButtons();
    }
  };
  earlier.addEventListener('click', () => void extend('before'));
  later.addEventListener('click', () => void extend('after'));
  // Scrolling near either end loads the next slice.
  const near = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting && !(e.target as HTMLElement).hidden) void extend(e.target === earlier ? 'before' : 'after');
  }, { root: body, rootMargin: '400px 0px' });
  near.observe(earlier);
  near.observe(later);

  const showPassageOnly = (target: HitTarget) => {
    const passage = el('mark', { class: 'passage', id: 'doc-passage', attrs: { tabindex: -1 } });
    appendMarked(passage, target.text, target.spans);
    body.replaceChildren(passage);
  };

  return {
    async open(target, opener) {
      const mine = ++seq;
      returnFocus = opener ?? returnFocus;
      panel.hidden = false;
      document.body.classList.add('drawer-open');
      title.textContent = target.title;
      meta.textContent = target.docId;
      body.replaceChildren('Loading…');
      view = undefined;
      title.focus();
      for (const fn of opened) fn(target);
      if (!hasInpage(client)) {
        meta.textContent = `${target.docId} · showing the matching passage only (this engine does not offer full documents)`;
        showPassageOnly(target);
        return;
      }
      const hasPassage = target.start !== undefined && target.end !== undefined && target.start < target.end;
      const from = hasPassage ? Math.max(0, target.start! - DOC_WINDOW_BEFORE) : 0;
      const to = hasPassage ? target.end! + DOC_WINDOW_AFTER : DOC_WINDOW_AFTER;
      try {
        const doc = await getDocumentRange(client, target.docId, from, to - from);
        if (mine !== seq) return;
        const parts = [target.docId, `${count(doc.textLength)} characters`, plural(doc.chunkCount, 'passage')];
        for (const k of ['author', 'year', 'source']) if (doc.meta[k] !== undefined) parts.push(String(doc.meta[k]));
        meta.textContent = parts.join(' · ');
        const text = el('div', { class: 'doc-text' });
        const end = doc.offset + doc.text.length;
        view = { id: target.docId, start: doc.offset, end, length: doc.textLength, text, loading: false };
        if (hasPassage && target.start! >= doc.offset && target.end! <= end) {
          const s = target.start! - doc.offset;
          const e = target.end! - doc.offset;
          const passage = el('mark', { class: 'passage', id: 'doc-passage', attrs: { tabindex: -1 } });
          // The engine's spans are relative to the hit text, which is exactly this passage.
          appendMarked(passage, doc.text.slice(s, e), target.spans);
          text.append(doc.text.slice(0, s), passage, doc.text.slice(e));
          body.replaceChildren(earlier, text, later);
          syncButtons();
          centreIn(body, passage);
        } else {
          text.append(doc.text);
          body.replaceChildren(earlier, text, later);
          syncButtons();
        }
      } catch (e) {
        if (mine !== seq) return;
        body.replaceChildren(errorView(e, 'Could not open the document'));
      }
    },
    close,
    onOpen: (fn) => void opened.push(fn),
    onClose: (fn) => void closed.push(fn),
  };
}

/**
 * Centres `target` in `scroller` by scrolling the scroller alone: scrollIntoView would also scroll
 * the page, taking the results beside the document out of view when the panel is tall.
 */
function centreIn(scroller: HTMLElement, target: HTMLElement): void {
  const box = scroller.getBoundingClientRect();
  const t = target.getBoundingClientRect();
  scroller.scrollTop += t.top - box.top - (scroller.clientHeight - Math.min(t.height, scroller.clientHeight)) / 2;
}
