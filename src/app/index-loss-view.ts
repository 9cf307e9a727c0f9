/**
 * "Your index lost documents": shown when the engine found its database smaller than the record
 * it keeps outside it (src/storage/witness.ts), e.g. after the browser discarded the database
 * following a crash. It says what was there, what is there now, why, and what to do: add the
 * documents again, or load an index export; exporting what is left stays one click away. It
 * stays (at every visit) until dismissed. When the record itself was unreadable it says that a
 * loss cannot be told, with the same ways back.
 */
import type { IndexLoss, IndexRestored } from '../protocol/control.ts';
import { byId, el } from './dom.ts';
import { count } from './format.ts';

const n = count;

export interface IndexLossActions {
  /** Forgets the loss (the worker's control plane). */
  dismiss(): Promise<void>;
  /** Shows where documents are added. */
  showImport(): void;
}

export function mountIndexLoss(host: HTMLElement, actions: IndexLossActions): { update(loss: IndexLoss | undefined, warning?: string, restored?: IndexRestored): void } {
  let shown: string | undefined;
  // A status asked for before the dismissal can answer after it, still with the loss: what was
  // dismissed stays dismissed (a new loss or restore has another key and is shown).
  const dismissed = new Set<string>();
  const dismiss = el('button', {
    attrs: { type: 'button' },
    on: {
      // Hidden at once; should the worker fail to forget it, the next status shows it again.
      click: () => {
        const key = shown;
        if (key) dismissed.add(key);
        update(undefined);
        void actions.dismiss().catch(() => key && dismissed.delete(key));
      },
    },
  }, 'Dismiss');
  const update = (loss: IndexLoss | undefined, warning?: string, restored?: IndexRestored) => {
    const key = loss ? `${loss.detectedAt}|${loss.found.indexVersion}` : (warning ?? (restored && `restored|${restored.detectedAt}`));
    if (key !== undefined && dismissed.has(key)) return update(undefined);
    if (key === shown) return;
    shown = key;
    host.hidden = !loss && !warning && !restored;
    host.classList.toggle('note-bad', !!(loss || warning));
    if (!loss && !warning && !restored) return host.replaceChildren();
    if (!loss && !warning && restored) {
      // Nothing was lost: the recovery log kept outside the database gave every acknowledged document back.
      const rebuilt = restored.action === 'restore';
      return host.replaceChildren(
        el('h2', { id: 'index-loss-h' }, rebuilt ? `Your index was restored after the browser discarded it: ${n(restored.documents)} documents` : `Your index's last changes were completed from its recovery log: ${n(restored.documents)} documents`),
        el(
          'p',
          {},
          rebuilt
            ? `${n(restored.documents)} documents (${n(restored.chunks)} passages) are back, rebuilt from the recovery log this page keeps outside the database. Why it was needed: ${restored.reason}.`
            : `All ${n(restored.documents)} documents (${n(restored.chunks)} passages) are there: the changes the database lacked were applied again from the recovery log this page keeps outside it. Why it was needed: ${restored.reason}.`,
        ),
        el('p', { class: 'actions' }, dismiss),
      );
    }
    if (!loss) {
      // The record was unreadable: nothing says a loss happened, nothing says it did not.
      return host.replaceChildren(
        el('h2', { id: 'index-loss-h' }, 'Your index could not be checked'),
        el('p', {}, warning!.replace(/^index record unreadable: t/, 'T')),
        el('p', {}, 'Nothing is added automatically meanwhile.'),
        el('p', { class: 'actions' }, el('label', { class: 'file-label', attrs: { for: 'index-file' } }, 'Load an index file'), ' ', el('button', { attrs: { type: 'button' }, on: { click: () => actions.showImport() } }, 'Add documents'), ' ', dismiss),
      );
    }
    const when = new Date(loss.detectedAt).toLocaleString('en');
    host.replaceChildren(
      el('h2', { id: 'index-loss-h' }, 'Your index lost documents'),
      el(
        'p',
        {},
        `It held ${n(loss.expected.documents)} documents (${n(loss.expected.chunks)} passages); it now holds ${n(loss.found.documents)} (${n(loss.found.chunks)} passages). `,
        `Found ${when}: ${loss.reason}.`,
      ),
      el(
        'p',
        {},
        'To get them back, add your documents again (Import) or load an index file you exported earlier. Export what is left first if you want to keep it. ',
        'Nothing is added automatically meanwhile.',
      ),
      el(
        'p',
        { class: 'actions' },
        el('button', { attrs: { type: 'button' }, on: { click: () => byId('export-index').click() } }, 'Export what is left'),
        ' ',
        el('label', { class: 'file-label', attrs: { for: 'index-file' } }, 'Load an index file'),
        ' ',
        el('button', { attrs: { type: 'button' }, on: { click: () => actions.showImport() } }, 'Add documents again'),
        ' ',
        dismiss,
      ),
    );
  };
  return { update };
}
