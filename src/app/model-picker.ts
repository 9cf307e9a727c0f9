/**
 * The model picker as a comparison table: one row per built-in dense model this app serves
 * (src/models/catalog.ts entries with a built manifest, so a new catalog entry is a new row), with
 * its languages, dimension, download size, licence, the quality measured on the development
 * collections and the speed measured in this browser; the one in use is marked, with its state
 * (download progress, failure — sparse search keeps working — and passages still waiting for
 * vectors). Speed is real: the load time the worker reports, and passages per second from an
 * `embed` request the person runs here, remembered per model in this browser.
 * Choosing another model stores the choice and reloads the page: capabilities never change under
 * an open session, and the worker re-embeds the index for the new model in the background.
 */
import { DEFAULT_DECISION } from '../models/catalog.ts';
import { MODEL_CHANNEL } from '../models/model-choice.ts';
import type { AvailableModel, ControlApi, WorkerStatus } from '../protocol/control.ts';
import { el } from './dom.ts';
import { count } from './format.ts';

const SPEED_KEY = 'rcp-playground:model-speed';
/** Texts embedded by "Measure speed": passage-sized English prose, each different. */
const PROBE = Array.from({ length: 24 }, (_, i) => `Passage ${i + 1}. The ship sailed past the lighthouse at dawn while the crew counted barrels of oil, argued about the weather and the price of whalebone, and the captain wrote in the log that the sea had been calm for ${i + 3} days.`);

export interface SpeedRecord {
  /** Passages embedded per second by `embed` (24 passages of ≈ 230 characters). */
  perSecond?: number;
  /** Model load time the worker reported (files, session, warm-up), ms. */
  loadMs?: number;
  device?: string;
  at: string;
}

type Speeds = Record<string, SpeedRecord>;

function readSpeeds(): Speeds {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(SPEED_KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Speeds) : {};
  } catch {
    return {};
  }
}

function saveSpeed(model: string, patch: Partial<SpeedRecord>): void {
  const all = readSpeeds();
  all[model] = { ...all[model], ...patch, at: new Date().toISOString() };
  localStorage.setItem(SPEED_KEY, JSON.stringify(all));
}

const mb = (bytes?: number) => (bytes ? `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB` : 'unknown');

/** The state line of the model in use. */
export function modelState(s: WorkerStatus): string {
  const m = s.model;
  if (!m) return 'No dense model: sparse search only.';
  const parts: string[] = [];
  if (m.state === 'loading') parts.push(`Loading ${m.name}${m.progress !== undefined ? `: ${Math.round(m.progress * 100)}% downloaded` : '…'}`);
  else if (m.state === 'failed') parts.push(`${m.name} failed to load (${m.error ?? 'unknown error'}); sparse search still works.`);
  else parts.push(`${m.name} ready on ${m.device ?? '?'}${m.threads ? ` (${m.threads} threads)` : ''}${m.loadMs !== undefined ? ` in ${(m.loadMs / 1000).toFixed(1)} s` : ''}${m.runtime ? `, runtime ${m.runtime}` : ''}.`);
  if (s.pendingVectors) parts.push(`Embedding in the background: ${count(s.pendingVectors)} of ${count(s.chunks)} passages still wait for vectors (dense and hybrid search skip them meanwhile).`);
  return parts.join(' ');
}

/** "1.2 min" / "40 s" for an estimated duration. */
const roughly = (seconds: number) => (seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : seconds < 5400 ? `${Math.round(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`);

function speedCell(name: string, speed: SpeedRecord | undefined, passages: number): (Node | string)[] {
  if (!speed || (speed.perSecond === undefined && speed.loadMs === undefined)) return ['not measured in this browser yet'];
  const out: (Node | string)[] = [];
  if (speed.perSecond !== undefined) out.push(`${speed.perSecond.toFixed(speed.perSecond < 10 ? 1 : 0)} passages/s`);
  if (speed.loadMs !== undefined) out.push(`${out.length ? ' · ' : ''}loads in ${(speed.loadMs / 1000).toFixed(1)} s`);
  if (speed.device) out.push(` on ${speed.device}`);
  if (speed.perSecond && passages > 0) out.push(el('br'), el('span', { class: 'muted', attrs: { 'data-estimate': name, 'data-per-second': speed.perSecond } }, estimate(passages, speed.perSecond)));
  return out;
}

const estimate = (passages: number, perSecond: number) => `re-embedding your ${count(passages)} passages ≈ ${roughly(passages / perSecond)}`;

function qualityCell(m: AvailableModel): (Node | string)[] {
  const q = m.quality;
  if (!q) return ['not measured'];
  return [`hybrid ${q.hybrid.toFixed(3)}`, el('br'), el('span', { class: 'muted' }, `dense ${q.dense.toFixed(3)} · keywords alone ${q.sparse.toFixed(3)}`)];
}

export interface ModelPicker {
  update(s: WorkerStatus): void;
}

/**
 * `embed` runs an RCP `embed` request on the page's session (for "Measure speed"); the table is
 * drawn in `host`.
 */
export function mountModelPicker(host: HTMLElement, control: Pick<ControlApi, 'models' | 'chooseModel'>, embed: (texts: string[]) => Promise<unknown>): ModelPicker {
  const state = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const consequence = el(
    'p',
    { class: 'note' },
    'Switching reloads the page and keeps your index: every passage is embedded again with the new model in the background. Until that finishes, dense and hybrid search skip the passages not yet embedded; keyword search works throughout.',
  );
  const table = el('div', { class: 'table-wrap' }, el('p', { class: 'muted' }, 'Reading the built-in models…'));
  const measured = el('p', { attrs: { 'aria-live': 'polite' }, class: 'muted' }); // not a second role=status: the model's state line is the one
  host.replaceChildren(el('h3', {}, 'Dense model'), state, consequence, table, measured);

  // Another tab switched models: restart on the same one rather than re-embed against each other.
  const channel = new BroadcastChannel(MODEL_CHANNEL);
  channel.onmessage = () => location.reload();

  let models: { current?: string; available: AvailableModel[] } | undefined;
  let last: WorkerStatus | undefined;
  let measuring = false;

  const measure = async (name: string) => {
    if (measuring) return;
    measuring = true;
    draw();
    measured.textContent = `Measuring ${name}: embedding ${PROBE.length} passages…`;
    try {
      await embed(PROBE.slice(0, 2)); // warm-up, not timed
      const t0 = performance.now();
      await embed(PROBE);
      const perSecond = PROBE.length / ((performance.now() - t0) / 1000);
      saveSpeed(name, { perSecond, device: last?.model?.device });
      measured.textContent = `${name}: ${perSecond.toFixed(1)} passages per second here.`;
    } catch (e) {
      measured.textContent = `Could not measure ${name}: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      measuring = false;
      draw();
    }
  };

  function draw(): void {
    if (!models) return;
    const { current, available } = models;
    if (available.length === 0) {
      table.replaceChildren(el('p', { class: 'muted' }, 'No built-in model is served (run npm run models).'));
      return;
    }
    const speeds = readSpeeds();
    const passages = last?.chunks ?? 0;
    const ready = last?.model?.state === 'ready';
    const head = el('tr', {}, ...['Model', 'Languages', 'Dimension', 'Download', 'Quality (nDCG@10, dev sets)', 'Speed here', 'Licence'].map((h) => el('th', { attrs: { scope: 'col' } }, h)));
    const body = available.map((m) => {
      const isCurrent = m.name === current;
      const radio = el('input', {
        attrs: { type: 'radio', name: 'dense-model', value: m.name, checked: isCurrent, 'aria-describedby': `model-label-${m.name}` },
        on: {
          change: async () => {
            state.textContent = `Switching to ${m.name}…`;
            await control.chooseModel(m.name);
            location.reload();
          },
        },
      });
      const measureBtn =
        isCurrent && ready
          ? el('button', { class: 'small', attrs: { type: 'button', disabled: measuring }, on: { click: () => void measure(m.name) } }, measuring ? 'Measuring…' : 'Measure speed')
          : null;
      return el(
        'tr',
        { class: isCurrent ? 'current' : undefined, attrs: { 'data-model': m.name, 'aria-current': isCurrent ? 'true' : undefined } },
        el(
          'th',
          { attrs: { scope: 'row' } },
          el('label', {}, radio, m.name),
          isCurrent ? el('span', { class: 'badge' }, 'in use') : null,
          m.name === DEFAULT_DECISION.model ? el('span', { class: 'badge', attrs: { title: DEFAULT_DECISION.why } }, 'default') : null,
          el('br'),
          el('span', { class: 'muted', id: `model-label-${m.name}` }, m.label),
        ),
        el('td', { attrs: { 'data-label': 'Languages' } }, m.languages ?? 'not stated'),
        el('td', { class: 'num', attrs: { 'data-label': 'Dimension' } }, String(m.dimension)),
        el('td', { class: 'num', attrs: { 'data-label': 'Download' } }, `${mb(m.bytes)} (${m.dtype})`),
        el('td', { attrs: { 'data-label': 'Quality (nDCG@10)' } }, ...qualityCell(m)),
        el('td', { attrs: { 'data-label': 'Speed here' } }, ...speedCell(m.name, speeds[m.name], isCurrent ? 0 : passages), measureBtn ? el('br') : null, measureBtn),
        el('td', { attrs: { 'data-label': 'Licence' } }, m.license),
      );
    });
    table.replaceChildren(
      el('table', { class: 'model-table' }, el('caption', { class: 'visually-hidden' }, 'Built-in dense models compared'), el('thead', {}, head), el('tbody', {}, ...body)),
      // The default decision, in the words initialize's model notes use (catalog.ts).
      el('p', { class: 'muted', attrs: { 'data-default-model': DEFAULT_DECISION.model } }, `Default: ${DEFAULT_DECISION.model}, ${DEFAULT_DECISION.why}.`),
    );
  }

  void control.models().then((m) => {
    models = m;
    draw();
  });
  return {
    update(s) {
      state.textContent = modelState(s);
      const prev = last;
      last = s;
      if (s.model?.state === 'ready' && s.model.loadMs !== undefined && readSpeeds()[s.model.name]?.loadMs !== s.model.loadMs) saveSpeed(s.model.name, { loadMs: s.model.loadMs, device: s.model.device });
      // Redraw only when the model's state moved (a redraw would take the focus from the table);
      // the re-embedding estimates follow the passage count in place.
      if (!prev || prev.model?.state !== s.model?.state) draw();
      else if (prev.chunks !== s.chunks)
        for (const span of table.querySelectorAll<HTMLElement>('[data-estimate]')) span.textContent = estimate(s.chunks, Number(span.dataset.perSecond));
    },
  };
}
