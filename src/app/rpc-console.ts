/**
 * The RCP console: compose raw JSON-RPC (or pick a ready example), send it over the page's own
 * session with `sendRaw`, and see the answer (or the error) to exactly that request. Every string
 * id is rewritten to a fresh `console-N` so answers can be matched and never collide with the
 * client's numeric ids.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import type { InitializeResult } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { examplesFor } from './examples.ts';
import type { FrameLog } from './frame-log.ts';

let counter = 0;

/** Gives every request in `text` a fresh id; returns the ids to wait for (empty for notifications). */
function withFreshIds(text: string): { text: string; ids: (string | number | null)[] } {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { text, ids: [null] }; // a parse error is answered with id null (§4.3)
  }
  const fix = (m: unknown): string | number | null | undefined => {
    if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
    const o = m as Record<string, unknown>;
    if (!('id' in o)) return undefined;
    if (typeof o.id === 'string' && o.id.startsWith('console')) o.id = `console-${++counter}`;
    return o.id as string | number | null;
  };
  const ids = (Array.isArray(msg) ? msg.map(fix) : [fix(msg)]).filter((x): x is string | number | null => x !== undefined);
  return { text: JSON.stringify(msg, null, 2), ids };
}

export function mountConsole(client: RcpClient, init: InitializeResult, log: FrameLog): void {
  const select = byId<HTMLSelectElement>('console-example');
  const input = byId<HTMLTextAreaElement>('console-input');
  const output = byId<HTMLPreElement>('console-output');
  const examples = examplesFor(init);
  select.replaceChildren(...examples.map((ex, i) => el('option', { attrs: { value: i } }, ex.label)));
  const load = () => {
    input.value = examples[Number(select.value)]?.text ?? '';
  };
  select.addEventListener('change', load);
  load();

  let waiting = new Set<string | number | null>();
  let answers: string[] = [];
  log.subscribe((r) => {
    if (r.direction !== 'in' || waiting.size === 0) return;
    let msg: unknown;
    try {
      msg = JSON.parse(r.text);
    } catch {
      return;
    }
    const items = Array.isArray(msg) ? msg : [msg];
    const mine = items.filter((m) => m && typeof m === 'object' && !('method' in m) && waiting.has((m as { id: string | number | null }).id));
    if (mine.length === 0) return;
    answers.push(...mine.map((m) => JSON.stringify(m, null, 2)));
    for (const m of mine) waiting.delete((m as { id: string | number | null }).id);
    output.textContent = answers.join('\n');
    output.classList.toggle('has-error', mine.some((m) => 'error' in (m as object)));
  });

  byId<HTMLFormElement>('console-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const { text, ids } = withFreshIds(input.value);
    input.value = text;
    waiting = new Set(ids);
    answers = [];
    output.classList.remove('has-error');
    output.textContent = ids.length === 0 ? 'Sent a notification: the server does not answer notifications.' : 'Waiting for the answer…';
    client.sendRaw(text);
  });
}
