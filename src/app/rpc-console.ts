/**
 * The RCP console: compose raw JSON-RPC (or pick a ready example), send it over the page's own
 * session with `sendRaw`, and see the answer (or the error) to exactly that request. Request ids
 * are rewritten to fresh `console-N` ones (console-ids.ts) so they never collide with the client's.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import type { InitializeResult } from '../protocol/types.ts';
import { withFreshIds, type ConsoleId } from './console-ids.ts';
import { byId, el } from './dom.ts';
import { examplesFor } from './examples.ts';
import type { FrameLog } from './frame-log.ts';

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

  let waiting = new Set<ConsoleId>();
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
    const mine = items.filter((m) => m && typeof m === 'object' && !('method' in m) && waiting.has((m as { id: ConsoleId }).id));
    if (mine.length === 0) return;
    answers.push(...mine.map((m) => JSON.stringify(m, null, 2)));
    for (const m of mine) waiting.delete((m as { id: ConsoleId }).id);
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
