/**
 * "Quarantined" in Documents: the documents a poisoned or injection mark holds out of answers
 * (`x-inpage/quarantine`, kept with the index, so across reloads and tabs), each with why, since
 * when and a Release button (`x-inpage/release`). Refreshed when the index changes.
 */
import { hasInpage, quarantined, release, type InpageQuarantined } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { plural } from './format.ts';

export interface QuarantinePanel {
  refresh(): Promise<void>;
}

const REASON: Readonly<Record<InpageQuarantined['reasons'][number], string>> = Object.freeze({
  poisonSuspected: 'suspected poisoning',
  injectionSuspected: 'suspected prompt injection',
});

/** Why and since when, in words. */
export function quarantineReason(q: Pick<InpageQuarantined, 'reasons' | 'at'>): string {
  return `${q.reasons.map((r) => REASON[r]).join(' and ')}, since ${new Date(q.at).toLocaleString('en')}`;
}

/** `released(docId)` runs after a Release (the index changed, and shown results unmark it). */
export function mountQuarantine(client: RcpClient, released: (docId: string) => void): QuarantinePanel {
  const section = byId('quarantine');
  const list = byId<HTMLUListElement>('quarantine-list');
  const summary = byId('quarantine-summary');
  const status = byId('quarantine-status');
  const caps = client.capabilities?.['x-inpage'] as { quarantine?: boolean; release?: boolean } | undefined;
  const available = hasInpage(client) && caps?.quarantine === true;
  section.hidden = !available;
  let seq = 0;

  const row = (q: InpageQuarantined) => {
    const title = q.title ?? q.id;
    const button = el('button', { class: 'small', attrs: { type: 'button', 'aria-label': `Release ${title}` } }, 'Release');
    button.hidden = caps?.release !== true;
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const r = await release(client, [q.id]);
        status.textContent = r.released ? `Released “${title}”: it is back in answers.` : `“${title}” was no longer quarantined.`;
        released(q.id);
        await refresh();
      } catch (e) {
        button.disabled = false;
        status.replaceChildren(errorView(e, 'Could not release the document'));
      }
    });
    return el(
      'li',
      { attrs: { 'data-doc-id': q.id } },
      el('strong', { attrs: { dir: 'auto' } }, title),
      title !== q.id ? el('span', { class: 'muted' }, ` ${q.id}`) : null,
      el('span', { class: 'muted' }, ` · ${quarantineReason(q)}${q.exists ? '' : ' · deleted since (its text is gone)'} `),
      button,
    );
  };

  const refresh = async () => {
    if (!available) return;
    const mine = ++seq;
    try {
      const { documents } = await quarantined(client);
      if (mine !== seq) return;
      list.replaceChildren(...documents.map(row));
      summary.textContent = documents.length
        ? `${plural(documents.length, 'document')} held out of search results and graph answers (communities, related passages) until released.`
        : 'Nothing is quarantined. Marking a result as poisoned holds its document out of answers until you release it here.';
    } catch (e) {
      if (mine === seq) status.replaceChildren(errorView(e, 'Could not list the quarantine'));
    }
  };
  void refresh();
  return { refresh };
}
