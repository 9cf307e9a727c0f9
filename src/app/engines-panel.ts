/**
 * The "Engines" panel: add remote RCP servers (HTTP, §5.2) by URL, and search this page's engine and
 * them together (§16 federation, `Federation` of the library). With no remote engine the search
 * goes to the in-page engine alone, exactly as before: the page contacts another origin only at an
 * address the user typed here. After each federated search every engine's outcome is shown (hits,
 * time, or why it failed), its state (ok, degraded, unreachable and why: engine-state.ts) and its
 * share of the answer's hits, so one engine being down, slow or broken is visible but harmless.
 */
import { Federation, type EngineOutcome } from '../client/federation/federation.ts';
import type { CallOptions, RcpClient } from '../client/rcp-client.ts';
import { RcpError } from '../protocol/errors.ts';
import type { Method, ParamsOf, ResultOf, RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { LOCAL_ENGINE_ID } from './hits-view.ts';
import { engineReports, type EngineReport } from './engine-state.ts';
import type { Hit } from '../protocol/types.ts';
const STORAGE_KEY = 'rcp-playground:engines';
/** A remote engine gets this long per query before it is dropped (the local one answers in ms). */
const FEDERATION_DEADLINE_MS = 4_000;

interface Remote {
  id: string;
  url: string;
}

/** What the search panel calls: `request` of an RcpClient, with `retrieve` federated when remotes exist. */
export type Searcher = Pick<RcpClient, 'request'>;

export interface EnginesPanel {
  searcher: Searcher;
}

function loadRemotes(): Remote[] {
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(raw) ? raw.filter((r): r is Remote => typeof r?.id === 'string' && typeof r?.url === 'string') : [];
  } catch {
    return [];
  }
}

/** A short, unique label for a URL: its host (and path when it is not the default `/rcp`). */
function labelFor(url: URL, taken: readonly string[]): string {
  const base = url.host + (url.pathname.replace(/\/+$/, '') === '/rcp' ? '' : url.pathname.replace(/\/+$/, ''));
  let id = base, n = 2;
  while (id === LOCAL_ENGINE_ID || taken.includes(id)) id = `${base} #${n++}`;
  return id;
}

function outcomeText(o: EngineOutcome): string {
  if (o.state === 'ok') return `${o.hits} hit${o.hits === 1 ? '' : 's'} in ${o.ms} ms${o.note ? ` (${o.note})` : ''}`;
  if (o.state === 'skipped') return `skipped: ${o.note ?? ''}`;
  return `${o.state === 'timeout' ? 'timed out' : 'failed'} after ${o.ms} ms: ${o.error?.message ?? ''} (RCP ${o.error?.code})`;
}

export function mountEngines(local: RcpClient): EnginesPanel {
  const form = byId<HTMLFormElement>('engine-form');
  const input = byId<HTMLInputElement>('engine-url');
  const list = byId<HTMLUListElement>('engine-list');
  const status = byId('engine-status');
  let remotes = loadRemotes();
  let federation: Federation | undefined;
  const outcomes = new Map<string, EngineOutcome>();
  const reports = new Map<string, EngineReport>();
  /** Records the last answer's outcomes and the hits it returned (none when it failed as a whole). */
  const record = (engines: readonly EngineOutcome[], hits: readonly Hit[]) => {
    outcomes.clear();
    reports.clear();
    for (const o of engines) outcomes.set(o.id, o);
    for (const r of engineReports(engines, hits)) reports.set(r.id, r);
    render();
  };

  const rebuild = () => {
    federation?.close();
    federation = remotes.length
      ? new Federation([{ id: LOCAL_ENGINE_ID, client: local, local: true }, ...remotes.map((r) => ({ id: r.id, url: r.url }))], {
          deadlineMs: FEDERATION_DEADLINE_MS,
          identity: 'rcp-playground',
          clientInfo: { name: 'rcp-playground', version: '0.2.0' },
        })
      : undefined;
    localStorage.setItem(STORAGE_KEY, JSON.stringify(remotes));
    record([], []);
  };

  const row = (id: string, url: string | undefined) => {
    const o = outcomes.get(id);
    const r = reports.get(id);
    const remove = url
      ? el('button', { class: 'linklike', attrs: { type: 'button', 'aria-label': `Remove engine ${id}` }, on: { click: () => ((remotes = remotes.filter((r) => r.id !== id)), rebuild()) } }, 'Remove')
      : null;
    return el(
      'li',
      { class: `engine${o && o.state !== 'ok' ? ' engine-bad' : ''}`, attrs: { 'data-engine': id, 'data-state': o?.state, 'data-health': r?.health } },
      el('strong', {}, id),
      url ? ` ${url} ` : ' (in-page worker) ',
      r ? el('span', { class: 'engine-health', attrs: { title: r.why ?? '' } }, r.why ? `${r.health}: ${r.why}` : r.health) : null,
      r ? ' · ' : null,
      r ? el('span', { class: 'engine-share' }, `${r.hits} of the answer's hits (${Math.round(r.share * 100)}%)`) : null,
      r ? ' · ' : null,
      o ? el('span', { class: 'engine-outcome' }, outcomeText(o)) : null,
      remove ? ' ' : null,
      remove,
    );
  };

  function render(): void {
    list.replaceChildren(row(LOCAL_ENGINE_ID, undefined), ...remotes.map((r) => row(r.id, r.url)));
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    let url: URL;
    try {
      url = new URL(input.value.trim());
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      status.textContent = 'Enter the base URL of an RCP server over HTTP, e.g. http://127.0.0.1:8787/rcp';
      return;
    }
    const href = url.href.replace(/\/+$/, '');
    if (remotes.some((r) => r.url === href)) {
      status.textContent = `${href} is already in the list.`;
      return;
    }
    remotes = [...remotes, { id: labelFor(url, remotes.map((r) => r.id)), url: href }];
    input.value = '';
    status.textContent = `Added ${href}. Searches now ask every engine and fuse the results (§16).`;
    rebuild();
  });

  const retrieve = async (params: RetrieveParams, options: CallOptions): Promise<RetrieveResult> => {
    if (!federation) return local.request('retrieve', params, options);
    try {
      const result = await federation.retrieve(params, { signal: options.signal });
      record(result.engines, result.hits);
      return result;
    } catch (e) {
      // -32010 and a failed required engine list every engine's outcome in error.data.
      const engines = e instanceof RcpError && Array.isArray(e.data?.engines) ? (e.data.engines as EngineOutcome[]) : [];
      if (engines.length) record(engines, []);
      throw e;
    }
  };

  const searcher: Searcher = {
    request<M extends Method>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
      if (method !== 'retrieve') return local.request(method, params, options);
      return retrieve(params as RetrieveParams, options) as Promise<ResultOf<M>>;
    },
  };
  rebuild();
  return { searcher };
}
