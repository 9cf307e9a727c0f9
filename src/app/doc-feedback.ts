/**
 * Feedback in the document panel: the Not helpful / Poisoned controls for the open passage, what
 * `feedback` recorded about this document's hits (`x-inpage/feedback`: helpful, not helpful, used,
 * cited, rewards, integrity marks, per passage), and whether the document is quarantined (with
 * Release). Refreshed when a signal about the open document is recorded anywhere on the page.
 */
import { documentFeedback, hasInpage, quarantined, release, type InpageHitFeedback } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import type { FeedbackActions } from './feedback-actions.ts';
import { plural } from './format.ts';
import type { HitTarget } from './hits-view.ts';
import { passageNumber } from './passage-list.ts';
import { quarantineReason } from './quarantine-panel.ts';

export interface DocFeedback {
  show(target: HitTarget): void;
  hide(): void;
  /** Reads the counts and the quarantine again (the index changed). */
  refresh(): void;
}

/** One hit's counts in words ("2 helpful, 1 not helpful, reward 0.40 (mean of 2)"); empty when nothing was counted. */
export function describeCounts(h: InpageHitFeedback): string {
  const parts: string[] = [];
  if (h.helpful) parts.push(`${h.helpful} helpful`);
  if (h.unhelpful) parts.push(`${h.unhelpful} not helpful`);
  if (h.used) parts.push(`used ${plural(h.used, 'time')}`);
  if (h.cited) parts.push(`cited ${plural(h.cited, 'time')}`);
  if (h.rewards) parts.push(`reward ${(h.rewardSum / h.rewards).toFixed(2)} (mean of ${h.rewards})`);
  if (h.poisonSuspected) parts.push(`${h.poisonSuspected} poisoning ${h.poisonSuspected === 1 ? 'mark' : 'marks'}`);
  if (h.injectionSuspected) parts.push(`${h.injectionSuspected} injection ${h.injectionSuspected === 1 ? 'mark' : 'marks'}`);
  return parts.join(', ');
}

/** `released(docId)` runs after the panel's Release (the index changed, and shown results unmark it). */
export function mountDocFeedback(client: RcpClient, feedback: FeedbackActions, released: (docId: string) => void): DocFeedback {
  const box = byId('doc-feedback');
  const caps = client.capabilities?.['x-inpage'] as { feedback?: boolean; quarantine?: boolean; release?: boolean } | undefined;
  const inpage = hasInpage(client);
  let open: { target: HitTarget; counts: HTMLElement; held: HTMLElement } | undefined;
  let seq = 0;

  /** What the engine kept about the open document: its hits' counts and its quarantine. */
  const refresh = async () => {
    const o = open;
    if (!o || !inpage) return;
    const mine = ++seq;
    const { target, counts, held } = o;
    try {
      const [record, q] = await Promise.all([
        caps?.feedback ? documentFeedback(client, target.docId) : undefined,
        caps?.quarantine ? quarantined(client) : undefined,
      ]);
      if (mine !== seq) return;
      const lines = Object.entries(record?.hits ?? {})
        .map(([id, h]) => {
          const n = passageNumber(id, target.docId);
          const words = describeCounts(h);
          return words ? `${id === target.docId ? 'the document' : n !== undefined ? `passage ${n}` : id}: ${words}` : '';
        })
        .filter(Boolean);
      counts.textContent = lines.length ? `Feedback kept for this document — ${lines.join('; ')}.` : 'No feedback recorded for this document.';
      const entry = q?.documents.find((d) => d.id === target.docId);
      if (!entry) return void held.replaceChildren();
      const button = el('button', { class: 'small', attrs: { type: 'button' } }, 'Release');
      button.hidden = caps?.release !== true;
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          await release(client, [target.docId]);
          released(target.docId);
          await refresh();
        } catch (e) {
          button.disabled = false;
          held.replaceChildren(errorView(e, 'Could not release the document'));
        }
      });
      held.replaceChildren(el('p', { class: 'note note-bad', attrs: { 'data-quarantined': '' } }, `Quarantined (${quarantineReason(entry)}): left out of search results and graph answers. `, button));
    } catch (e) {
      if (mine === seq) counts.replaceChildren(errorView(e, 'Could not read the feedback'));
    }
  };

  feedback.onRecorded((docId) => {
    if (open?.target.docId === docId) void refresh();
  });

  return {
    show(target) {
      const controls = feedback.controls(target);
      const counts = el('p', { class: 'muted', attrs: { 'data-feedback-counts': '' } });
      const held = el('div');
      open = { target, counts, held };
      box.replaceChildren(...[controls, counts, held].filter((n): n is HTMLElement => n !== null));
      box.hidden = !controls && !inpage;
      void refresh();
    },
    refresh: () => void refresh(),
    hide() {
      open = undefined;
      seq++;
      box.replaceChildren();
      box.hidden = true;
    },
  };
}
