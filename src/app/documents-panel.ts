/**
 * The document list (x-inpage/documents, sorted by id) with open, re-index (x-inpage/document →
 * index/add) and delete (index/delete, with Undo: the document is read first and added back on
 * request). A windowed list: rows have one fixed height and only those in view (plus a margin)
 * exist in the DOM, their data fetched a page at a time as the list scrolls, so 50,000 documents
 * cost what 50 do. It refreshes when the page says the index changed (the page throttles that
 * while imports run) and only while its area is shown: a hidden list is marked stale and fetched
 * when it is shown again — never by polling. Hidden when the server lacks the x-inpage extension.
 */
import { getDocument, hasInpage, listDocuments, type InpageDocumentSummary } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el, formatBytes } from './dom.ts';
import { errorView } from './errors.ts';
import { plural } from './format.ts';
import type { HitTarget } from './hits-view.ts';

/** Row height in CSS pixels (style.css lays each row out on two single lines within it). */
export const ROW_HEIGHT = 60;
/** Summaries fetched per request. */
export const LIST_PAGE = 100;
/** Rows kept rendered above and below the visible ones. */
const OVERSCAN = 10;

export interface DocumentsPanel {
  /** The index changed: re-read what is in view (or, when hidden, on the next show). */
  refresh(): Promise<void>;
  /** The area holding the list was shown or hidden. */
  setShown(shown: boolean): void;
}

export interface DocumentsHooks {
  open(t: HitTarget, opener: HTMLElement): void;
  changed(): void;
}

const titleOf = (d: InpageDocumentSummary) => d.title ?? (typeof d.meta.title === 'string' ? d.meta.title : d.id);
const rowKey = (d: InpageDocumentSummary) => `${d.id}\u0000${titleOf(d)}\u0000${d.chunks}\u0000${d.chars}`;

export function mountDocumentsPanel(client: RcpClient, hooks: DocumentsHooks): DocumentsPanel {
  const section = byId('documents');
  const scroller = byId('doc-scroll');
  const list = byId<HTMLUListElement>('doc-list');
  const summary = byId('doc-summary');
  const problem = byId('doc-error');
  const available = hasInpage(client);
  byId('doc-unavailable').hidden = available;
  scroller.hidden = !available;

  let total = 0;
  /** Fetched pages by page number, for the current generation of the index. */
  let pages = new Map<number, InpageDocumentSummary[]>();
  const loading = new Map<number, Promise<void>>();
  let generation = 0;
  let shown = false;
  let stale = true;
  /** Rendered rows by position. */
  const rows = new Map<number, { li: HTMLLIElement; key: string }>();

  const act = async (fn: () => Promise<unknown>, what: string) => {
    problem.replaceChildren();
    try {
      await fn();
      hooks.changed();
    } catch (e) {
      problem.replaceChildren(errorView(e, what));
    }
  };

  const undoBox = byId('doc-undo');
  /** After a delete: "Deleted X. Undo" puts the same document (id, text, meta) back. */
  const offerUndo = (title: string, doc: { id: string; text: string; meta: Record<string, unknown> }) => {
    const undo = el('button', { class: 'small', attrs: { type: 'button' } }, 'Undo');
    undo.addEventListener('click', () => {
      undoBox.replaceChildren(`Restoring “${title}”…`);
      void act(async () => {
        await client.request('index/add', { documents: [{ id: doc.id, text: doc.text, meta: doc.meta }], chunk: true, contextual: true });
        undoBox.replaceChildren(`Restored “${title}”.`);
      }, `Restoring ${title} failed`);
    });
    undoBox.replaceChildren(`Deleted “${title}”. `, undo);
  };

  const row = (d: InpageDocumentSummary, index: number): HTMLLIElement => {
    const title = titleOf(d);
    const open = el('button', { class: 'linklike', attrs: { type: 'button', dir: 'auto' } }, title);
    open.addEventListener('click', () => hooks.open({ docId: d.id, title, text: '', spans: [] }, open));
    const reindex = el('button', { class: 'small', attrs: { type: 'button', 'aria-label': `Re-index ${title}` } }, 'Re-index');
    reindex.addEventListener('click', () =>
      void act(async () => {
        const doc = await getDocument(client, d.id);
        await client.request('index/add', { documents: [{ id: doc.id, text: doc.text, meta: doc.meta }], chunk: true, contextual: true });
      }, `Re-indexing ${title} failed`),
    );
    const del = el('button', { class: 'small danger', attrs: { type: 'button', 'aria-label': `Delete ${title}` } }, 'Delete');
    del.addEventListener('click', () =>
      void act(async () => {
        const doc = await getDocument(client, d.id); // kept for Undo
        await client.request('index/delete', { ids: [d.id] });
        offerUndo(title, doc);
      }, `Deleting ${title} failed`),
    );
    const li = el(
      'li',
      { attrs: { 'data-doc-id': d.id, 'aria-posinset': index + 1, 'aria-setsize': total } },
      el('div', { class: 'doc-row-title', attrs: { title } }, open),
      el('div', { class: 'doc-row-meta', attrs: { dir: 'auto' } }, `${d.id} · ${plural(d.chunks, 'passage')} · ${formatBytes(d.chars)} of text`),
      el('div', { class: 'doc-row-actions' }, reindex, del),
    );
    li.style.top = `${index * ROW_HEIGHT}px`;
    li.style.height = `${ROW_HEIGHT}px`;
    return li;
  };

  /** Rows `[first, last)` in view, with the overscan margin. */
  const windowRange = (): [number, number] => {
    const top = scroller.scrollTop;
    const height = scroller.clientHeight || ROW_HEIGHT * 8;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(total, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    return [first, Math.max(first, last)];
  };

  const docAt = (i: number): InpageDocumentSummary | undefined => pages.get(Math.floor(i / LIST_PAGE))?.[i % LIST_PAGE];

  /** Puts the rows in view into the DOM, keeping rows whose document did not change (and their focus). */
  const render = () => {
    list.style.height = `${total * ROW_HEIGHT}px`;
    const [first, last] = windowRange();
    for (const [i, r] of rows) {
      const d = i >= first && i < last ? docAt(i) : undefined;
      if (!d || rowKey(d) !== r.key) {
        r.li.remove();
        rows.delete(i);
      } else r.li.setAttribute('aria-setsize', String(total));
    }
    const fresh: HTMLLIElement[] = [];
    for (let i = first; i < last; i++) {
      const d = docAt(i);
      if (!d || rows.has(i)) continue;
      const li = row(d, i);
      rows.set(i, { li, key: rowKey(d) });
      fresh.push(li);
    }
    if (fresh.length) list.append(...fresh);
  };

  /** Fetches page `p` for the current generation (one request per page at a time). */
  const loadPage = (p: number): Promise<void> => {
    const gen = generation;
    const existing = loading.get(p);
    if (existing) return existing;
    const job = listDocuments(client, { offset: p * LIST_PAGE, limit: LIST_PAGE })
      .then((res) => {
        if (gen !== generation) return;
        pages.set(p, res.documents);
        total = res.total;
      })
      .finally(() => loading.delete(p));
    loading.set(p, job);
    return job;
  };

  const showSummary = () => {
    summary.textContent = total === 0 ? 'No documents yet.' : `${plural(total, 'document')}, sorted by id.`;
  };

  /** Loads the pages the window needs that are missing, then renders. */
  const fill = async () => {
    const [first, last] = windowRange();
    const need: number[] = [];
    for (let p = Math.floor(first / LIST_PAGE); p * LIST_PAGE < Math.max(last, 1); p++) if (!pages.has(p)) need.push(p);
    if (need.length) await Promise.all(need.map(loadPage));
    render();
  };

  const refresh = async (): Promise<void> => {
    if (!available) return;
    if (!shown) {
      stale = true;
      return;
    }
    stale = false;
    // A new generation: re-read the pages in view; the old ones stay on screen until then.
    generation++;
    loading.clear();
    const old = pages;
    pages = new Map();
    const [first, last] = windowRange();
    const wanted: number[] = [];
    for (let p = Math.floor(first / LIST_PAGE); p * LIST_PAGE < Math.max(last, 1); p++) wanted.push(p);
    try {
      await Promise.all(wanted.map(loadPage));
    } catch (e) {
      pages = old;
      throw e;
    }
    // Deleted documents can leave the window past the end: pull it back.
    if (scroller.scrollTop > total * ROW_HEIGHT) scroller.scrollTop = Math.max(0, total * ROW_HEIGHT - scroller.clientHeight);
    showSummary();
    await fill();
  };

  let refreshing: Promise<void> | undefined;
  let again = false;
  /** One refresh at a time; a change during one runs one more after it. */
  const safeRefresh = (): Promise<void> => {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = refresh()
      .catch((e: unknown) => {
        problem.replaceChildren(errorView(e, 'Could not list documents'));
      })
      .finally(() => {
        refreshing = undefined;
        if (again) {
          again = false;
          void safeRefresh();
        }
      });
    return refreshing;
  };

  let frame = 0;
  scroller.addEventListener('scroll', () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      render();
      void fill().catch((e: unknown) => problem.replaceChildren(errorView(e, 'Could not list documents')));
    });
  });
  window.addEventListener('focus', () => void safeRefresh());
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && void safeRefresh());
  section.hidden = false;
  return {
    refresh: safeRefresh,
    setShown(v) {
      shown = v;
      if (v && stale) void safeRefresh();
    },
  };
}
