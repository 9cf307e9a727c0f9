/**
 * Says so when the engine worker is gone or only busy. The page polls its status every few seconds
 * and listens to its heartbeat (src/util/heartbeat.ts, a port of its own). A status call unanswered
 * for STATUS_DEADLINE_MS while beats still come means the worker is alive and busy: a quiet notice
 * that answers are slow, no talk of a crash. Only when beats too have stopped for SILENCE_TO_FAULT_MS
 * (a worker that crashed or ran out of memory never beats again) does it say the engine stopped,
 * offering a reload — the index lives in IndexedDB, so reloading loses nothing. A worker that
 * answers again clears either notice.
 */
import type { Beat } from '../util/heartbeat.ts';
import { byId, el } from './dom.ts';
import { plainMessage } from './errors.ts';

/** A status call unanswered this long is checked … */
export const STATUS_DEADLINE_MS = 10_000;
/** … and no answer and no beat for this long means the engine stopped. */
export const SILENCE_TO_FAULT_MS = 20_000;
/** "Busy" needs a beat this recent: a worker whose beats stopped with its answers is not said to be working. */
export const BUSY_BEAT_MS = 5_000;

export interface EngineWatch {
  /** Runs a status call, watching whether it is answered in time (the call itself is returned as is). */
  status<T>(call: () => Promise<T>): Promise<T>;
  /** Listens to the worker's heartbeat on `port` (ControlApi.heartbeat). */
  listen(port: MessagePort): void;
  /** The engine could not start. */
  failed(e: unknown): void;
}

export function mountEngineWatch(): EngineWatch {
  const box = byId('engine-fault');
  let lastAnswer = performance.now();
  /** The last beat; undefined while no heartbeat is listened to (then silence of answers alone decides). */
  let lastBeat: number | undefined;
  let shown: 'busy' | 'down' | undefined;

  const show = (kind: 'busy' | 'down' | 'failed', title: string, detail: string) => {
    const parts = [el('p', {}, el('strong', {}, title), ' ', detail)];
    if (kind !== 'busy') parts.push(el('p', { class: 'actions' }, el('button', { class: 'primary', attrs: { type: 'button' }, on: { click: () => location.reload() } }, 'Reload the page')));
    box.replaceChildren(...parts);
    box.dataset.state = kind;
    box.hidden = false;
    document.body.classList.toggle('engine-down', kind !== 'busy');
    if (kind !== 'failed') shown = kind;
  };
  const clear = () => {
    shown = undefined;
    box.hidden = true;
    box.replaceChildren();
    delete box.dataset.state;
    document.body.classList.remove('engine-down');
  };

  return {
    status(call) {
      let answered = false;
      // Re-armed until the call is answered: one unanswered call is enough to notice a dead worker
      // (the page may be awaiting it, with no further calls coming).
      let timer: ReturnType<typeof setTimeout>;
      const check = () => {
        if (answered) return;
        const now = performance.now();
        const silent = now - lastAnswer;
        const beatSilent = lastBeat === undefined ? silent : now - lastBeat;
        if (beatSilent >= SILENCE_TO_FAULT_MS && silent >= SILENCE_TO_FAULT_MS) {
          const since = Math.round(Math.min(silent, beatSilent) / 1000);
          return show('down', 'The engine stopped responding.', `It has given no sign of life for ${since} s: its worker may have crashed or run out of memory. Your documents are safe in this browser; reloading restarts the engine.`);
        }
        if (lastBeat !== undefined && shown !== 'down' && (shown === 'busy' || beatSilent < BUSY_BEAT_MS)) show('busy', 'The engine is busy.', `It is working but has taken ${Math.round(silent / 1000)} s to answer; searches may be slow until it is done.`);
        timer = setTimeout(check, 1000);
      };
      timer = setTimeout(check, STATUS_DEADLINE_MS);
      const p = call();
      void p.then(
        () => {
          answered = true;
          clearTimeout(timer);
          lastAnswer = performance.now();
          if (shown) clear();
        },
        () => {
          answered = true;
          clearTimeout(timer);
        },
      );
      return p;
    },
    listen(port) {
      lastBeat = performance.now();
      port.onmessage = (ev: MessageEvent<Beat>) => {
        if (ev.data?.type !== 'beat') return;
        lastBeat = performance.now();
        // A beat after silence: the worker was busy, not gone.
        if (shown === 'down') show('busy', 'The engine is busy.', 'It answers again after a long pause; searches may be slow until it is done.');
      };
    },
    failed(e) {
      show('failed', 'The engine could not start.', `${plainMessage(e)} Search, import and the inspector need it; reloading tries again.`);
    },
  };
}
