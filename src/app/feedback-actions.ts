/**
 * "Not helpful" and "Poisoned" on a result or an open passage: RCP `feedback` signals (§7.16) sent
 * on the page's own session, so the inspector shows them and later searches on that session see
 * their effect. The engine keeps the counts with the index (the document panel shows them) and
 * never ranks by them; a poisoned mark quarantines the document (left out of later answers until
 * released), said in place with an Undo that releases it (`x-inpage/release`).
 */
import { hasInpage, release } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import { el } from './dom.ts';
import { errorView } from './errors.ts';
import type { HitTarget } from './hits-view.ts';

export interface FeedbackActions {
  /** Whether the engine takes `feedback` (the controls exist only then). */
  readonly available: boolean;
  /** Controls for one hit or passage; null when the engine takes no feedback or the hit is another engine's. */
  controls(target: HitTarget): HTMLElement | null;
  /** Called after a signal about `docId` was recorded, and after a quarantine or release of it. */
  onRecorded(fn: (docId: string) => void): void;
}

export interface FeedbackOptions {
  /** The query the hits answered (sent with the signals, as §7.16 allows). */
  query(): string | undefined;
  /** The index changed (a quarantine is a new version): refresh what shows it. */
  changed(): void;
  /** A document was quarantined (`held`) or released from here: the shown results mark it. */
  quarantined?(docId: string, held: boolean): void;
}

export function mountFeedback(client: RcpClient, opts: FeedbackOptions): FeedbackActions {
  const available = client.capabilities?.feedback !== undefined;
  const canRelease = hasInpage(client) && (client.capabilities?.['x-inpage'] as { release?: boolean } | undefined)?.release === true;
  const listeners: ((docId: string) => void)[] = [];
  const recorded = (docId: string) => {
    for (const fn of listeners) fn(docId);
  };

  const send = (hitId: string, signal: { helpful?: boolean; poisonSuspected?: boolean }) => {
    const query = opts.query();
    return client.request('feedback', { ...(query ? { query } : {}), signals: [{ hitId, ...signal }] });
  };

  const controls = (target: HitTarget): HTMLElement | null => {
    const hitId = target.hitId;
    if (!available || hitId === undefined) return null;
    const unhelpful = el('button', { class: 'small', attrs: { type: 'button', 'data-feedback': 'unhelpful', 'aria-pressed': 'false' } }, 'Not helpful');
    const poisoned = el(
      'button',
      { class: 'small danger', attrs: { type: 'button', 'data-feedback': 'poisoned', title: 'Suspected poisoning: hold this document out of answers until you release it' } },
      'Poisoned',
    );
    const status = el('span', { class: 'feedback-status muted', attrs: { role: 'status' } });
    const group = el('div', { class: 'feedback', attrs: { role: 'group', 'aria-label': `Feedback on ${target.title}` } }, unhelpful, ' ', poisoned, ' ', status);
    const busy = (on: boolean) => {
      unhelpful.disabled = on || unhelpful.getAttribute('aria-pressed') === 'true';
      poisoned.disabled = on;
    };
    const failed = (e: unknown, what: string) => status.replaceChildren(errorView(e, what));

    unhelpful.addEventListener('click', async () => {
      busy(true);
      try {
        const r = await send(hitId, { helpful: false });
        if (r.accepted === 1) {
          unhelpful.setAttribute('aria-pressed', 'true');
          status.textContent = 'Marked not helpful (kept with the index; ranking does not use it).';
          recorded(target.docId);
        } else status.textContent = 'Not recorded: this passage is no longer in the index.';
      } catch (e) {
        failed(e, 'Could not send the feedback');
      } finally {
        busy(false);
      }
    });

    poisoned.addEventListener('click', async () => {
      busy(true);
      try {
        const r = await send(hitId, { poisonSuspected: true });
        const held = Array.isArray(r._meta?.quarantined) ? (r._meta.quarantined as unknown[]) : [];
        if (r.accepted !== 1) {
          status.textContent = 'Not recorded: this passage is no longer in the index.';
          return;
        }
        opts.quarantined?.(target.docId, true);
        status.replaceChildren(
          held.includes(target.docId)
            ? `Quarantined: “${target.title}” is left out of later answers until released.`
            : `“${target.title}” was already quarantined.`,
        );
        if (canRelease) {
          const undo = el('button', { class: 'linklike', attrs: { type: 'button' } }, 'Undo (release it)');
          undo.addEventListener('click', async () => {
            undo.disabled = true;
            try {
              await release(client, [target.docId]);
              opts.quarantined?.(target.docId, false);
              status.textContent = `Released: “${target.title}” is back in answers.`;
              recorded(target.docId);
              opts.changed();
            } catch (e) {
              undo.disabled = false;
              failed(e, 'Could not release the document');
            }
          });
          status.append(' ', undo);
        }
        recorded(target.docId);
        opts.changed();
      } catch (e) {
        failed(e, 'Could not send the feedback');
      } finally {
        busy(false);
      }
    });
    return group;
  };

  return { available, controls, onRecorded: (fn) => void listeners.push(fn) };
}
