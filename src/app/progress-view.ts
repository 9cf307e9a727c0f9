/**
 * One progress display (bar, counts, ETA, Cancel) shared by sample seeding and imports. Only one
 * long job runs at a time; `start` returns the job's AbortSignal, wired to the Cancel button.
 */
import { byId } from './dom.ts';
import { count } from './format.ts';
import type { IngestProgress } from './ingest.ts';

export interface ProgressView {
  start(label: string): AbortSignal;
  update(p: IngestProgress): void;
  finish(message: string): void;
  busy(): boolean;
}

const fmtEta = (ms: number) => (ms < 1500 ? 'about a second' : ms < 90_000 ? `about ${Math.round(ms / 1000)} s` : `about ${Math.round(ms / 60_000)} min`);

export function mountProgress(): ProgressView {
  const box = byId('progress');
  const label = byId('progress-label');
  const bar = byId<HTMLProgressElement>('progress-bar');
  const counts = byId('progress-counts');
  const cancel = byId<HTMLButtonElement>('progress-cancel');
  const done = byId('progress-done');
  let ctrl: AbortController | undefined;
  // Progress arrives many times a frame during a big write: the latest is drawn once per frame.
  let latest: IngestProgress | undefined;
  let frame: number | undefined;
  const draw = () => {
    frame = undefined;
    const p = latest;
    if (!p || !ctrl) return;
    bar.value = p.fraction;
    bar.setAttribute('aria-valuetext', `${Math.round(p.fraction * 100)}%`);
    counts.textContent = `${count(p.done)} of ${count(p.total)} documents · ${Math.round(p.fraction * 100)}%${p.etaMs !== undefined ? ` · ${fmtEta(p.etaMs)} left` : ''}`;
  };
  const stopDrawing = () => {
    if (frame !== undefined) cancelAnimationFrame(frame);
    frame = undefined;
    latest = undefined;
  };
  cancel.addEventListener('click', () => {
    stopDrawing();
    ctrl?.abort();
    counts.textContent = 'Cancelling…';
  });
  return {
    start(text) {
      stopDrawing();
      ctrl?.abort();
      ctrl = new AbortController();
      box.hidden = false;
      cancel.hidden = false;
      label.textContent = text;
      bar.value = 0;
      counts.textContent = '';
      done.textContent = '';
      return ctrl.signal;
    },
    update(p) {
      latest = p;
      frame ??= requestAnimationFrame(draw);
    },
    finish(message) {
      stopDrawing();
      ctrl = undefined;
      cancel.hidden = true;
      box.hidden = true;
      done.textContent = message;
    },
    busy: () => ctrl !== undefined,
  };
}
