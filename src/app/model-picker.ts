/**
 * The model picker: the built-in dense models this app serves, each with its dimension, download
 * size, license and the quality measured on the development collections, and the one in use with
 * its state — download progress while it loads, the failure if it failed (sparse search keeps
 * working), and how many passages still wait for vectors while it (re-)embeds in the background.
 * Choosing another model stores the choice in this browser and reloads the page: capabilities
 * never change under an open session, and the worker re-embeds the index for the new model.
 */
import { MODEL_CHANNEL } from '../models/model-choice.ts';
import type { AvailableModel, ControlApi, WorkerStatus } from '../protocol/control.ts';
import { el } from './dom.ts';

const mb = (bytes?: number) => (bytes ? `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB` : 'size unknown');

function quality(m: AvailableModel): string {
  const q = m.quality;
  return q ? `nDCG@10 hybrid ${q.hybrid.toFixed(3)} · dense ${q.dense.toFixed(3)} (sparse alone ${q.sparse.toFixed(3)})` : 'quality not measured';
}

/** The state line of the model in use. */
export function modelState(s: WorkerStatus): string {
  const m = s.model;
  if (!m) return 'No dense model: sparse search only.';
  const parts: string[] = [];
  if (m.state === 'loading') parts.push(`Loading ${m.name}${m.progress !== undefined ? `: ${Math.round(m.progress * 100)}% downloaded` : '…'}`);
  else if (m.state === 'failed') parts.push(`${m.name} failed to load (${m.error ?? 'unknown error'}); sparse search still works.`);
  else parts.push(`${m.name} ready on ${m.device ?? '?'}${m.threads ? ` (${m.threads} threads)` : ''}${m.loadMs !== undefined ? ` in ${(m.loadMs / 1000).toFixed(1)} s` : ''}.`);
  if (s.pendingVectors) parts.push(`Embedding in the background: ${s.pendingVectors.toLocaleString('en')} of ${s.chunks.toLocaleString('en')} passages still wait for vectors (dense and hybrid search skip them meanwhile).`);
  return parts.join(' ');
}

export function mountModelPicker(host: HTMLElement, control: Pick<ControlApi, 'models' | 'chooseModel'>): { update(s: WorkerStatus): void } {
  const state = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const list = el('div', { attrs: { role: 'radiogroup', 'aria-label': 'Dense model' } });
  const note = el('p', { class: 'muted' }, 'Switching reloads the page; the index stays and is re-embedded with the new model in the background.');
  host.replaceChildren(el('h3', {}, 'Dense model'), state, list, note);

  // Another tab switched models: restart on the same one rather than re-embed against each other.
  const channel = new BroadcastChannel(MODEL_CHANNEL);
  channel.onmessage = () => location.reload();

  void control.models().then(({ current, available }) => {
    if (available.length === 0) {
      list.replaceChildren(el('p', { class: 'muted' }, 'No built-in model is served (run npm run models).'));
      return;
    }
    list.replaceChildren(
      ...available.map((m) =>
        el(
          'label',
          { class: 'model-choice' },
          el('input', {
            attrs: { type: 'radio', name: 'dense-model', value: m.name, checked: m.name === current },
            on: {
              change: async () => {
                state.textContent = `Switching to ${m.name}…`;
                await control.chooseModel(m.name);
                location.reload();
              },
            },
          }),
          ` ${m.name} — ${m.label}. ${m.dimension}-d, ${mb(m.bytes)} (${m.dtype}), ${m.license}. ${quality(m)}.`,
        ),
      ),
    );
  });
  return { update: (s) => (state.textContent = modelState(s)) };
}
