/**
 * The document list (x-inpage/documents) with open, re-index (x-inpage/document → index/add) and
 * delete (index/delete, with Undo: the document is read first and added back on request). Refreshes
 * when the index changes (the page calls `refresh`: after its own writes, and when the worker's
 * index version moves because another tab wrote) and on focus — never by polling, so the inspector
 * is not buried in background frames. Hidden when the server lacks the x-inpage extension.
 */
import { getDocument, hasInpage, listDocuments } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el, formatBytes } from './dom.ts';
import { errorView } from './errors.ts';
import { plural } from './format.ts';
import type { HitTarget } from './hits-view.ts';

const PAGE = 50;

export interface DocumentsPanel {
  refresh(): Promise<void>;
}

export function mountDocumentsPanel(client: RcpClient, hooks: { open(t: HitTarget, opener: HTMLElement): void; changed(): void }): DocumentsPanel {
  const section = byId('documents');
  const list = byId<HTMLUListElement>('doc-list');
  const summary = byId('doc-summary');
  const more = byId<HTMLButtonElement>('doc-more');
  const problem = byId('doc-error');
  const available = hasInpage(client);
  byId('doc-unavailable').hidden = available;
  list.hidden = !available;
  let limit = PAGE;
  let refreshing: Promise<void> | undefined;
  let signature = '';

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

  const refresh = async () => {
    if (!available) return;
    const res = await listDocuments(client, { offset: 0, limit });
    const sig = JSON.stringify(res);
    if (sig === signature) return; // unchanged: keep focus and scroll where they are
    signature = sig;
    summary.textContent = res.total === 0 ? 'No documents yet.' : `${plural(res.total, 'document')}${res.total > res.documents.length ? ` (showing ${res.documents.length})` : ''}`;
    more.hidden = res.total <= res.documents.length;
    list.replaceChildren(
      ...res.documents.map((d) => {
        const title = d.title ?? (typeof d.meta.title === 'string' ? d.meta.title : d.id);
        const open = el('button', { class: 'linklike', attrs: { type: 'button' } }, title);
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
        return el(
          'li',
          { attrs: { 'data-doc-id': d.id } },
          el('div', { class: 'doc-row-title' }, open),
          el('div', { class: 'doc-row-meta' }, `${d.id} · ${plural(d.chunks, 'passage')} · ${formatBytes(d.chars)} of text`),
          el('div', { class: 'doc-row-actions' }, reindex, del),
        );
      }),
    );
  };

  const safeRefresh = (): Promise<void> => {
    refreshing ??= refresh()
      .catch((e: unknown) => {
        problem.replaceChildren(errorView(e, 'Could not list documents'));
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };

  more.addEventListener('click', () => {
    limit += PAGE;
    void safeRefresh();
  });
  window.addEventListener('focus', () => void safeRefresh());
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && void safeRefresh());
  section.hidden = false;
  return { refresh: safeRefresh };
}
