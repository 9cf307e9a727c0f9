/**
 * Search as you type: a debounced `retrieve` per edit (150 ms), the previous one cancelled through
 * its AbortSignal (so the client sends `notifications/cancel`), with mode, fusion, rerank, MMR, k
 * and filter controls generated from the advertised capabilities.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { InitializeResult, RetrieveParams } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { mountFilterBuilder } from './filter-builder.ts';
import { queryTerms, termPattern } from './highlight.ts';
import { type HitTarget, renderHits } from './hits-view.ts';

export const SEARCH_DEBOUNCE_MS = 150;

export interface SearchPanel {
  /** Re-runs the current query (after the index changed). */
  refresh(): void;
  /** Tells the panel whether the index is empty (for the empty state). */
  setEmpty(empty: boolean): void;
}

export function mountSearch(client: Pick<RcpClient, 'request'>, init: InitializeResult, open: (t: HitTarget, terms: string[], opener: HTMLElement) => void): SearchPanel {
  const caps = init.capabilities;
  const r = caps.retrieve ?? {};
  const form = byId<HTMLFormElement>('search-form');
  const q = byId<HTMLInputElement>('q');
  const mode = byId<HTMLSelectElement>('mode');
  const fusion = byId<HTMLSelectElement>('fusion');
  const rerank = byId<HTMLInputElement>('rerank');
  const mmr = byId<HTMLInputElement>('mmr');
  const lambda = byId<HTMLInputElement>('mmr-lambda');
  const k = byId<HTMLInputElement>('k');
  const status = byId('search-status');
  const list = byId<HTMLOListElement>('hits');
  const empty = byId('empty-state');

  mode.replaceChildren(el('option', { attrs: { value: '' } }, `default (${r.defaultMode ?? 'server'})`), ...(r.modes ?? []).map((m) => el('option', { attrs: { value: m } }, m)));
  fusion.replaceChildren(el('option', { attrs: { value: '' } }, 'default'), ...(r.fusion ?? []).map((f) => el('option', { attrs: { value: f } }, f)));
  byId('fusion-field').hidden = !r.fusion?.length;
  byId('rerank-field').hidden = !caps.rerank;
  byId('mmr-field').hidden = !r.mmr;
  if (r.maxK) k.max = String(r.maxK);
  const syncFusion = () => {
    fusion.disabled = mode.value !== 'hybrid' && !(mode.value === '' && r.defaultMode === 'hybrid');
  };
  syncFusion();
  lambda.disabled = !mmr.checked;

  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: AbortController | undefined;
  let indexEmpty = false;
  const filters = mountFilterBuilder(byId('filters'), caps.filter, () => schedule());

  const params = (query: string): RetrieveParams => {
    const p: RetrieveParams = { query, k: Math.max(1, Math.min(Number(k.value) || 10, r.maxK ?? 100)), includeText: true };
    if (mode.value) p.mode = mode.value as RetrieveParams['mode'];
    if (fusion.value && !fusion.disabled) p.fusion = { method: fusion.value as NonNullable<RetrieveParams['fusion']>['method'] };
    if (rerank.checked && caps.rerank?.methods[0]) p.rerank = { method: caps.rerank.methods[0] };
    if (mmr.checked) p.mmr = { lambda: Math.min(1, Math.max(0, Number(lambda.value) || 0.7)) };
    const filter = filters.value();
    if (filter) p.filter = filter;
    return p;
  };

  const showEmpty = () => {
    empty.hidden = !(indexEmpty && q.value.trim() === '');
  };

  const run = async () => {
    const query = q.value.trim();
    inflight?.abort();
    showEmpty();
    if (!query) {
      inflight = undefined;
      list.replaceChildren();
      status.replaceChildren(indexEmpty ? '' : 'Type to search.');
      return;
    }
    let p: RetrieveParams;
    try {
      p = params(query);
    } catch (e) {
      status.replaceChildren(errorView(e, 'Filter'));
      return;
    }
    const ctrl = new AbortController();
    inflight = ctrl;
    const t0 = performance.now();
    status.replaceChildren('Searching…');
    try {
      const res = await client.request('retrieve', p, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      const ms = res.usage?.latencyMs ?? performance.now() - t0;
      const terms = queryTerms(query);
      renderHits(list, res.hits, termPattern(terms), (t, opener) => open(t, terms, opener));
      list.dataset.request = JSON.stringify(p); // what these results answer (tests and curious people)
      status.replaceChildren(res.hits.length === 0 ? `No results for “${query}”.${indexEmpty ? ' The index is empty.' : ''}` : `${res.hits.length} result${res.hits.length === 1 ? '' : 's'} in ${ms.toFixed(0)} ms.`);
      list.setAttribute('aria-busy', 'false');
    } catch (e) {
      if (e instanceof RcpError && e.code === ErrorCode.Cancelled) return; // superseded by a newer query
      list.replaceChildren();
      status.replaceChildren(errorView(e, 'Search failed'));
    } finally {
      if (inflight === ctrl) inflight = undefined;
    }
  };

  function schedule(delay = SEARCH_DEBOUNCE_MS): void {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), delay);
  }

  q.addEventListener('input', () => schedule());
  for (const c of [k, lambda, fusion, rerank]) c.addEventListener('change', () => schedule(0));
  mode.addEventListener('change', () => {
    syncFusion();
    schedule(0);
  });
  mmr.addEventListener('change', () => {
    lambda.disabled = !mmr.checked;
    schedule(0);
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    schedule(0);
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-try]')) {
    b.addEventListener('click', () => {
      q.value = b.dataset.try ?? '';
      q.focus();
      schedule(0);
    });
  }
  showEmpty();

  return {
    refresh: () => schedule(0),
    setEmpty(v) {
      indexEmpty = v;
      showEmpty();
    },
  };
}
