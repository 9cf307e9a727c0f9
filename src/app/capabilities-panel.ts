/**
 * The capabilities panel: the initialize result as a readable list (one row per capability, its
 * settings as JSON) plus the raw result.
 */
import type { InitializeResult } from '../protocol/types.ts';
import { byId, el } from './dom.ts';

export function mountCapabilities(init: InitializeResult): void {
  const host = byId('capabilities');
  const rows = Object.entries(init.capabilities).map(([key, value]) =>
    el('div', { class: 'cap-row' }, el('dt', {}, key), el('dd', {}, el('code', {}, JSON.stringify(value)))),
  );
  host.replaceChildren(
    el(
      'p',
      {},
      `${init.server.name} ${init.server.version} · protocol version ${init.protocolVersion}`,
      init._meta?.conformance ? ` · conformance ${init._meta.conformance}` : '',
    ),
    el('dl', { class: 'caps' }, ...rows),
    el('details', {}, el('summary', {}, 'Raw initialize result'), el('pre', {}, JSON.stringify(init, null, 2))),
  );
}
