/**
 * The Learn RCP tour: one lesson at a time (lessons.ts), its request prefilled and editable, sent
 * on a session of the tour's own (a fresh port of the page's engine), the answer checked and the
 * parts of the frames to look at highlighted. Progress is kept in this browser; every step works
 * offline; everything is reachable by keyboard (native buttons, a textarea, focus moved to each
 * new step's heading) and the verdict is announced (aria-live).
 */
import { StreamWire } from '../../conformance/stream-wire.ts';
import type { Expect } from '../../conformance/wire.ts';
import { isObject } from '../../protocol/json.ts';
import type { Capabilities } from '../../protocol/types.ts';
import { PortTransport } from '../../transport/port-transport.ts';
import type { Transport } from '../../transport/transport.ts';
import { el } from '../dom.ts';
import { jsonView } from './json-view.ts';
import { LESSON_DOCS, LESSONS, type Answer, type Lesson } from './lessons.ts';
import { specLink } from './spec-view.ts';
import './learn.css';

export interface TourDeps {
  openPort(): Promise<MessagePort>;
  /** What this engine advertises (the page's own session): requests are prefilled from it until the tour's session has its own. */
  capabilities: Capabilities;
  /** §16 over this page's engine and an in-page peer holding the lesson documents. */
  federate(query: string, k: number): Promise<unknown>;
  /** Sees the tour session's frames (the inspector). */
  onFrame?(direction: 'out' | 'in', frame: string): void;
  /** The page's index changed (lessons add and delete documents). */
  changed?(): void;
}

const STORE = 'rcp-playground:tour';
const TIMEOUT_MS = 60_000;

interface Progress {
  done: string[];
  at: string;
}

function loadProgress(): Progress {
  try {
    const p = JSON.parse(localStorage.getItem(STORE) ?? '{}') as Partial<Progress>;
    return { done: Array.isArray(p.done) ? p.done.filter((x) => typeof x === 'string') : [], at: typeof p.at === 'string' ? p.at : LESSONS[0].id };
  } catch {
    return { done: [], at: LESSONS[0].id };
  }
}

/** A transport whose frames are also shown to `onFrame`. */
function tapped(t: Transport, onFrame?: TourDeps['onFrame']): Transport {
  if (!onFrame) return t;
  const outer: Transport = {
    start: () => t.start(),
    send: (f) => (onFrame('out', f), t.send(f)),
    close: () => t.close(),
  };
  t.onmessage = (f) => (onFrame('in', f), outer.onmessage?.(f));
  t.onclose = () => outer.onclose?.();
  return outer;
}

const expectOf = (msg: unknown): Expect => (Array.isArray(msg) ? { kind: 'batch' } : isObject(msg) && 'id' in msg ? { kind: 'response', id: msg.id as string | number } : { kind: 'silence' });

export function mountTour(container: HTMLElement, deps: TourDeps): void {
  const progress = loadProgress();
  const save = () => localStorage.setItem(STORE, JSON.stringify(progress));
  const steps = el('ol', { class: 'tour-steps', attrs: { 'aria-label': 'Tour steps' } });
  const count = el('p', { class: 'muted' });
  const panel = el('div', { class: 'tour-step' });
  const reset = el('button', { class: 'small', attrs: { type: 'button' } }, 'Start over');
  container.append(el('nav', { class: 'tour-nav', attrs: { 'aria-label': 'Learn RCP tour' } }, count, steps, reset), panel);

  let wire: StreamWire | undefined;
  let initialized = false;
  let caps: Capabilities = deps.capabilities;
  let docsAdded = false;

  const session = async (): Promise<StreamWire> => {
    if (wire) return wire;
    const t = tapped(new PortTransport(await deps.openPort()), deps.onFrame);
    wire = new StreamWire({ transport: t, kind: 'port', label: 'tour', quietMs: 800 });
    initialized = false;
    return wire;
  };
  const endSession = () => {
    void wire?.close();
    wire = undefined;
    initialized = false;
  };

  const exchange = async (msg: unknown) => {
    const w = await session();
    const reply = await w.send(JSON.stringify(msg), { expect: expectOf(msg), timeoutMs: TIMEOUT_MS });
    const parsed = reply.frames.map((f) => JSON.parse(f) as unknown);
    const notifications = parsed.filter((m): m is Record<string, unknown> => isObject(m) && 'method' in m);
    const response = parsed.find((m) => !(isObject(m) && 'method' in m));
    return { response, notifications, fault: reply.fault?.message };
  };

  /** What a step needs before its own request: an initialized session, the lesson documents. */
  const prepare = async (lesson: Lesson, notes: string[]) => {
    if (lesson.needsInit && !initialized) {
      const a = await exchange({ jsonrpc: '2.0', id: 'tour-init', method: 'initialize', params: { protocolVersion: 1, client: { name: 'learn-rcp-tour', version: '1' } } });
      const r = isObject(a.response) && isObject(a.response.result) ? a.response.result : undefined;
      if (r) {
        initialized = true;
        caps = (r.capabilities ?? {}) as Capabilities;
        notes.push('The tour sent `initialize` first: this step needs an initialized session.');
      }
    }
    if (lesson.needsDocs && !docsAdded && caps.index?.writable) {
      await exchange({ jsonrpc: '2.0', id: 'tour-docs', method: 'index/add', params: { documents: LESSON_DOCS } });
      docsAdded = true;
      notes.push('The tour added the three lesson documents first (an upsert: harmless if they are there).');
      deps.changed?.();
    }
  };

  function renderSteps(): void {
    const at = LESSONS.findIndex((l) => l.id === progress.at);
    count.textContent = `Step ${at + 1} of ${LESSONS.length} · ${progress.done.length} done`;
    steps.replaceChildren(
      ...LESSONS.map((l, i) =>
        el(
          'li',
          { class: progress.done.includes(l.id) ? 'tour-done' : '' },
          el('button', { class: 'linklike', attrs: { type: 'button', 'aria-current': l.id === progress.at ? 'step' : undefined, 'data-step': l.id }, on: { click: () => show(l.id) } }, `${i + 1}. ${l.title}`, progress.done.includes(l.id) ? el('span', { class: 'tour-check', attrs: { 'aria-label': ' (done)' } }, ' ✓') : null),
        ),
      ),
    );
  }

  function show(id: string, focus = true): void {
    const lesson = LESSONS.find((l) => l.id === id) ?? LESSONS[0];
    progress.at = lesson.id;
    save();
    renderSteps();
    const at = LESSONS.indexOf(lesson);
    const heading = el('h4', { attrs: { tabindex: -1 } }, `${at + 1}. ${lesson.title}`);
    const request = el('textarea', { id: 'tour-request', attrs: { rows: 8, spellcheck: 'false' } });
    request.value = JSON.stringify(lesson.request(caps), null, 2);
    const send = el('button', { attrs: { type: 'submit' } }, lesson.federated ? 'Search both engines' : 'Send');
    const restore = el('button', { class: 'small', attrs: { type: 'button' }, on: { click: () => (request.value = JSON.stringify(lesson.request(caps), null, 2)) } }, 'Restore the request');
    const verdict = el('p', { class: 'tour-verdict', attrs: { role: 'status', 'aria-live': 'polite' } });
    const frames = el('div', { class: 'tour-frames' });
    const prev = el('button', { attrs: { type: 'button', disabled: at === 0 }, on: { click: () => show(LESSONS[at - 1].id) } }, 'Previous');
    const next = el('button', { attrs: { type: 'button', disabled: at === LESSONS.length - 1 }, on: { click: () => show(LESSONS[at + 1].id) } }, 'Next');
    const form = el(
      'form',
      {},
      el('label', { attrs: { for: 'tour-request' } }, lesson.federated ? 'The search (query and k)' : 'The request (edit it if you like)'),
      request,
      el('div', { class: 'conf-actions' }, send, ' ', restore),
    );
    panel.replaceChildren(heading, ...lesson.explain.map((p) => el('p', {}, ...inlineCode(p))), el('p', {}, 'Read ', specLink(lesson.section), ' of the spec.'), form, verdict, frames, el('div', { class: 'tour-pager' }, prev, ' ', next));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void (async () => {
        let msg: unknown;
        try {
          msg = JSON.parse(request.value);
        } catch {
          verdict.textContent = 'That is not JSON: fix the request, or restore it.';
          verdict.className = 'tour-verdict tour-bad';
          return;
        }
        send.disabled = true;
        verdict.className = 'tour-verdict';
        verdict.textContent = 'Waiting for the answer…';
        frames.replaceChildren();
        try {
          const notes: string[] = [];
          if (lesson.id === 'initialize' && initialized) endSession(); // a fresh session, so initialize works again
          await prepare(lesson, notes);
          let answer: Answer;
          if (lesson.federated) {
            const p = isObject(msg) && isObject(msg.params) ? msg.params : {};
            const result = await deps.federate(String(p.query ?? 'lighthouse'), Number(p.k ?? 5));
            answer = { sent: msg, response: { result }, notifications: [], caps };
          } else {
            const a = await exchange(msg);
            if (a.fault && !lesson.silent) throw new Error(a.fault);
            answer = { sent: msg, response: a.response, notifications: a.notifications, caps };
            if (isObject(msg) && msg.method === 'initialize' && isObject(a.response) && isObject(a.response.result)) {
              initialized = true;
              caps = (a.response.result.capabilities ?? {}) as Capabilities;
            }
            if (isObject(msg) && msg.method === 'shutdown' && isObject(a.response) && 'result' in a.response) endSession();
            if (isObject(msg) && (msg.method === 'index/add' || msg.method === 'index/delete')) {
              docsAdded = msg.method === 'index/add';
              deps.changed?.();
            }
          }
          const v = lesson.check(answer);
          verdict.textContent = `${v.ok ? '✓' : '✗'} ${v.message}`;
          verdict.className = `tour-verdict ${v.ok ? 'tour-good' : 'tour-bad'}`;
          frames.append(...notes.map((n) => el('p', { class: 'muted' }, ...inlineCode(n))));
          frames.append(el('h5', {}, lesson.federated ? 'The search' : 'Sent'), jsonView(msg, lesson.highlight.filter((p) => p.startsWith('params')), 'Sent frame'));
          for (const n of answer.notifications) frames.append(el('h5', {}, `Received: ${String(n.method)}`), jsonView(n, lesson.highlight, 'Received notification'));
          frames.append(el('h5', {}, lesson.federated ? 'Fused result' : 'Received'), answer.response === undefined ? el('p', { class: 'muted' }, 'Nothing (no answer).') : jsonView(answer.response, lesson.highlight, 'Received answer'));
          if (v.ok && !progress.done.includes(lesson.id)) {
            progress.done.push(lesson.id);
            save();
            renderSteps();
          }
        } catch (e) {
          verdict.textContent = `✗ ${e instanceof Error ? e.message : String(e)}`;
          verdict.className = 'tour-verdict tour-bad';
        } finally {
          send.disabled = false;
        }
      })();
    });
    if (focus) heading.focus();
  }

  reset.addEventListener('click', () => {
    progress.done = [];
    endSession();
    show(LESSONS[0].id);
  });
  show(progress.at, false);
}

/** `code` spans of a lesson sentence as <code>. */
function inlineCode(text: string): (string | HTMLElement)[] {
  return text.split(/(`[^`]+`)/).filter(Boolean).map((s) => (s.startsWith('`') ? el('code', {}, s.slice(1, -1)) : s));
}
