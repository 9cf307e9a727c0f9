/**
 * The RCP console: a session of its own (a fresh worker port, so ids go out exactly as typed and
 * nothing it does can disturb the page's search session), raw JSON-RPC or a ready example, and a
 * history of request/response pairs with timings. The session is opened with `initialize` on
 * first use unless the user sends `initialize` themselves; after `shutdown` (or a closed port) the
 * console says so and offers a new session. Every frame also goes to the inspector.
 */
import { PortTransport } from '../transport/port-transport.ts';
import type { InitializeResult } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { examplesFor } from './examples.ts';
import type { FrameLog } from './frame-log.ts';
import { expectedAnswers, type Pending } from './console-pairs.ts';

const CONSOLE_INIT = JSON.stringify({ jsonrpc: '2.0', id: 'console-init', method: 'initialize', params: { protocolVersion: 1, client: { name: 'rcp-playground-console', version: '1' } } });

export interface Console {
  /** Puts `text` in the console's request box and sends it (as if typed there). */
  send(text: string): void;
}

export function mountConsole(openPort: () => Promise<MessagePort>, init: InitializeResult, log: FrameLog): Console {
  const select = byId<HTMLSelectElement>('console-example');
  const input = byId<HTMLTextAreaElement>('console-input');
  const output = byId<HTMLPreElement>('console-output');
  const history = byId<HTMLOListElement>('console-history');
  const state = byId('console-session');
  const examples = examplesFor(init);
  select.replaceChildren(...examples.map((ex, i) => el('option', { attrs: { value: i } }, ex.label)));
  const load = () => {
    input.value = examples[Number(select.value)]?.text ?? '';
  };
  select.addEventListener('change', load);
  load();

  let transport: PortTransport | undefined;
  let initialized = false;
  let ended = false;
  let pending: Pending[] = [];

  const newSession = el('button', { class: 'small', attrs: { type: 'button' } }, 'Start a new session');
  newSession.addEventListener('click', () => {
    transport?.close();
    transport = undefined;
    initialized = ended = false;
    pending = [];
    state.replaceChildren('A new console session opens with your next request.');
  });
  const end = (why: string) => {
    ended = true;
    state.replaceChildren(`${why} `, newSession);
  };

  /** One history row per sent text; answers fill it in as they arrive. */
  const addRow = (text: string, note?: string): Pending => {
    const answer = el('pre', { class: 'console-answer' }, 'waiting…');
    const timing = el('span', { class: 'muted' });
    const li = el('li', {}, el('details', { attrs: { open: true } }, el('summary', {}, labelOf(text), ' ', timing, note ? ` — ${note}` : ''), el('pre', { class: 'console-request' }, text), answer));
    history.prepend(li);
    const p: Pending = { ...expectedAnswers(text), at: performance.now(), answers: [], answer, timing, row: li };
    if (p.ids.length === 0 && !p.expectsNullId) {
      answer.textContent = 'A notification: the server sends no answer.';
      timing.textContent = '';
    } else pending.push(p);
    return p;
  };

  const onFrame = (frame: string) => {
    log.add('in', frame, 'console');
    let msg: unknown;
    try {
      msg = JSON.parse(frame);
    } catch {
      return;
    }
    const items = (Array.isArray(msg) ? msg : [msg]) as Record<string, unknown>[];
    const responses = items.filter((m) => m && typeof m === 'object' && !('method' in m));
    if (responses.length === 0) return; // notifications (progress, logs) stay in the inspector
    const key = (m: Record<string, unknown>) => (m.id === null || m.id === undefined ? null : JSON.stringify(m.id));
    const owner = pending.find((p) => responses.every((r) => (key(r) === null ? p.expectsNullId || p.ids.length > 0 : p.ids.includes(key(r)!))));
    if (!owner) return;
    owner.answers.push(...responses);
    for (const r of responses) {
      const k = key(r);
      if (k === null) owner.expectsNullId = false;
      else owner.ids = owner.ids.filter((i) => i !== k);
      if (k === '"console-init"' && !('error' in r)) initialized = true;
    }
    const ms = performance.now() - owner.at;
    owner.timing.textContent = `${ms.toFixed(1)} ms`;
    owner.answer.textContent = owner.answers.map((a) => JSON.stringify(a, null, 2)).join('\n');
    owner.row.classList.toggle('has-error', owner.answers.some((a) => 'error' in a));
    if (owner.row === history.firstElementChild) {
      output.textContent = owner.answer.textContent;
      output.classList.toggle('has-error', owner.row.classList.contains('has-error'));
    }
    if (owner.ids.length === 0 && !owner.expectsNullId) pending = pending.filter((p) => p !== owner);
    if (owner.shutdown && owner.answers.some((a) => 'result' in a)) end('This console session was shut down: the server accepts nothing more on it.');
  };

  const ensureSession = async (): Promise<PortTransport> => {
    if (transport) return transport;
    const t = new PortTransport(await openPort());
    t.onmessage = onFrame;
    t.onclose = () => {
      if (transport === t && !ended) end('The console session closed.');
    };
    t.start();
    transport = t;
    state.replaceChildren('Console session open (its own port: ids are sent exactly as you type them).');
    return t;
  };

  const send = async (text: string, note?: string) => {
    const t = await ensureSession();
    const p = addRow(text, note);
    output.textContent = p.ids.length === 0 && !p.expectsNullId ? 'A notification: the server sends no answer.' : 'Waiting for the answer…';
    output.classList.remove('has-error');
    log.add('out', text, 'console');
    t.send(text);
  };

  const form = byId<HTMLFormElement>('console-form');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void (async () => {
      if (ended) {
        output.textContent = 'This console session has ended. Start a new session to send more.';
        output.classList.add('has-error');
        return;
      }
      const text = input.value;
      if (!initialized && !isInitialize(text)) {
        initialized = true; // sent once; its answer is in the history
        await send(CONSOLE_INIT, 'sent by the console to open its session');
      }
      if (isInitialize(text)) initialized = true;
      await send(text);
    })();
  });
  return {
    send(text) {
      input.value = text;
      form.requestSubmit();
    },
  };
}

function labelOf(text: string): string {
  try {
    const m = JSON.parse(text) as unknown;
    if (Array.isArray(m)) return `batch of ${m.length}`;
    if (m && typeof m === 'object') {
      const o = m as { method?: unknown; id?: unknown };
      return `${typeof o.method === 'string' ? o.method : '(no method)'}${o.id !== undefined ? ` #${JSON.stringify(o.id)}` : ' (notification)'}`;
    }
  } catch {
    return 'not JSON';
  }
  return 'not a request';
}

function isInitialize(text: string): boolean {
  try {
    const m = JSON.parse(text) as { method?: unknown };
    return !Array.isArray(m) && m?.method === 'initialize';
  } catch {
    return false;
  }
}
