/**
 * Says so when the engine worker is gone: it failed to start, or it stopped answering its control
 * plane (the page polls its status every few seconds; a worker that crashed or ran out of memory
 * never answers again). The message is plain and offers a reload — the index lives in IndexedDB,
 * so reloading loses nothing. A worker that was only busy and answers again clears the message.
 */
import { byId, el } from './dom.ts';
import { plainMessage } from './errors.ts';

/** A status call unanswered this long is checked … */
export const STATUS_DEADLINE_MS = 10_000;
/** … and no answer at all for this long means the engine stopped. */
export const SILENCE_TO_FAULT_MS = 20_000;

export interface EngineWatch {
  /** Runs a status call, watching whether it is answered in time (the call itself is returned as is). */
  status<T>(call: () => Promise<T>): Promise<T>;
  /** The engine could not start. */
  failed(e: unknown): void;
}

export function mountEngineWatch(): EngineWatch {
  const box = byId('engine-fault');
  let lastAnswer = performance.now();
  let down = false;

  const show = (title: string, detail: string) => {
    const reload = el('button', { class: 'primary', attrs: { type: 'button' }, on: { click: () => location.reload() } }, 'Reload the page');
    box.replaceChildren(el('p', {}, el('strong', {}, title), ' ', detail), el('p', { class: 'actions' }, reload));
    box.hidden = false;
    document.body.classList.add('engine-down');
  };
  const clear = () => {
    box.hidden = true;
    box.replaceChildren();
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
        const silent = performance.now() - lastAnswer;
        if (silent < SILENCE_TO_FAULT_MS) return void (timer = setTimeout(check, SILENCE_TO_FAULT_MS - silent));
        down = true;
        show('The engine stopped responding.', `It has not answered for ${Math.round(silent / 1000)} s: its worker may have crashed or run out of memory. Your documents are safe in this browser; reloading restarts the engine.`);
      };
      timer = setTimeout(check, STATUS_DEADLINE_MS);
      const p = call();
      void p.then(
        () => {
          answered = true;
          clearTimeout(timer);
          lastAnswer = performance.now();
          if (down) {
            down = false;
            clear();
          }
        },
        () => {
          answered = true;
          clearTimeout(timer);
        },
      );
      return p;
    },
    failed(e) {
      show('The engine could not start.', `${plainMessage(e)} Search, import and the inspector need it; reloading tries again.`);
    },
  };
}
