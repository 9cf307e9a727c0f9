/**
 * Search as you type: a debounced `retrieve` per edit (150 ms), the previous one cancelled through
 * its AbortSignal (so the client sends `notifications/cancel`), with mode, fusion, rerank, MMR, k
 * and filter controls generated from the advertised capabilities.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { InitializeResult, RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { facetValues, hasInpage } from '../client/inpage.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { clip, plural } from './format.ts';
import { mountFilterBuilder } from './filter-builder.ts';
import { MATCHES_FIELD } from './highlight.ts';
import { type HitsContext, type HitTarget, renderHits } from './hits-view.ts';
import { readSearchState, type SearchState, writeSearchState } from './url-state.ts';

export const SEARCH_DEBOUNCE_MS = 150;

export interface SearchPanel {
  /**
   * The index changed: re-runs the current query without disturbing what is shown. Results the
   * user is looking at are never replaced; when the new answer differs, a "new results available"
   * button offers it. Only a `settled` change (no import under way) is announced.
   */
  refresh(settled: boolean): void;
  /** Tells the panel whether the index is empty (for the empty state). */
  setEmpty(empty: boolean): void;
  /** Whether a query is typed and no result shows yet (so each change of the index should re-run it at once). */
  waiting(): boolean;
  /** The results shown now and the request they answer (for "export results"). */
  current(): { params: RetrieveParams; result: RetrieveResult } | undefined;
}

/**
 * `client` is the page's own session (capabilities, facets, "did you mean"); `searcher` runs the
 * retrieves (the local engine, or a federation over it and the remote engines the person added);
 * `actions` adds controls to every hit (feedback-actions.ts).
 */
export function mountSearch(
  client: RcpClient,
  searcher: Pick<RcpClient, 'request'>,
  init: InitializeResult,
  open: (t: HitTarget, opener: HTMLElement) => void,
  actions?: HitsContext['actions'],
): SearchPanel {
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
  const pane = byId('results-pane');
  /** Whether results are shown (the export buttons keep their place, visible only then). */
  const hasResults = (v: boolean) => pane.classList.toggle('has-results', v);

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
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** Summaries of background refreshes go here (not announced). */
  const quiet = byId('search-quiet');
  const inpage = hasInpage(client) && (caps as Record<string, { facets?: boolean } | undefined>)['x-inpage']?.facets === true;
  const filters = mountFilterBuilder(byId('filters'), caps.filter, () => schedule(), inpage ? async (field) => (await facetValues(client, field, 200)).values : undefined);
  // "Did you mean": only when the server advertises query/transform with a `rewrite` method.
  const didYouMean = byId('did-you-mean');
  const canRewrite = caps.transform?.methods.includes('rewrite') === true;
  const suggestRewrite = async (query: string, signal: AbortSignal) => {
    didYouMean.hidden = true;
    if (!canRewrite) return;
    try {
      const t = await client.request('query/transform', { query, method: 'rewrite', n: 1 }, { signal });
      const better = t.queries.find((x) => x.trim() && x.trim().toLowerCase() !== query.toLowerCase());
      if (!better || signal.aborted) return;
      const link = el('button', { class: 'linklike', attrs: { type: 'button' } }, better);
      link.addEventListener('click', () => {
        q.value = better;
        schedule(0);
      });
      didYouMean.replaceChildren('Did you mean ', link, '?');
      didYouMean.hidden = false;
    } catch {
      /* a suggestion is optional */
    }
  };

  const fresh = byId<HTMLButtonElement>('new-results');
  let pending: { p: RetrieveParams; res: RetrieveResult; ms: number } | undefined;

  /** k as typed: a whole number from 1 to maxK, else an error shown to the user (never silently 10). */
  const kValue = (): number => {
    const max = r.maxK ?? 100;
    const v = k.value.trim() === '' && !k.validity.badInput ? 10 : Number(k.value);
    if (!Number.isInteger(v) || v < 1 || v > max) throw new RcpError(ErrorCode.InvalidParams, `k must be a whole number from 1 to ${max}`, { field: 'k' });
    return v;
  };

  const params = (query: string): RetrieveParams => {
    const p: RetrieveParams = { query, k: kValue(), includeText: true };
    // Ask the engine where its terms matched (side-band data other servers ignore, §4.4).
    p._meta = { [MATCHES_FIELD]: true };
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

  /** Shows `res` as the answer to `p`; `announce` puts its summary in the live region. */
  let shown: { params: RetrieveParams; result: RetrieveResult } | undefined;
  const show = (p: RetrieveParams, res: RetrieveResult, ms: number, announce: boolean) => {
    pending = undefined;
    fresh.hidden = true;
    const request = JSON.stringify(p);
    // The typed query often repeats what a commit's refresh already showed: re-rendering the same
    // hits would flicker and wipe a feedback mark or an open detail the reader just made.
    const unchanged = shown !== undefined && list.childElementCount > 0 && list.dataset.request === request && JSON.stringify(shown.result.hits) === JSON.stringify(res.hits);
    if (!unchanged) renderHits(list, res.hits, open, { rerankMethod: p.rerank ? p.rerank.method : undefined, actions });
    shown = { params: p, result: res };
    hasResults(res.hits.length > 0);
    list.dataset.request = request; // what these results answer (tests and curious people)
    list.dataset.ids = res.hits.map((h) => String(h.id)).join('\n');
    const query = typeof p.query === 'string' ? p.query : '';
    const active = filters.describe();
    const summary =
      res.hits.length === 0
        ? `No results for “${clip(query)}”${active ? ` with the filter ${active}` : ''}.${indexEmpty ? ' The index is empty.' : active ? ' Try removing the filter.' : ''}`
        : `${plural(res.hits.length, 'result')} in ${ms.toFixed(0)} ms${active ? ` (filtered: ${active})` : ''}.`;
    (announce ? status : quiet).replaceChildren(summary);
    (announce ? quiet : status).replaceChildren();
    list.setAttribute('aria-busy', 'false');
  };

  /** Runs the current query; in the background (an index change) the shown results stay put. */
  const run = async (background = false, settled = true) => {
    const query = q.value.trim();
    if (background && (inflight || !query)) return; // the user's own query is on its way, or nothing to refresh
    inflight?.abort();
    showEmpty();
    if (!query) {
      inflight = undefined;
      pending = undefined;
      fresh.hidden = true;
      list.replaceChildren();
      hasResults(false);
      delete list.dataset.request;
      shown = undefined;
      status.replaceChildren(indexEmpty ? '' : 'Type to search.');
      return;
    }
    let p: RetrieveParams;
    try {
      p = params(query);
    } catch (e) {
      status.replaceChildren(errorView(e, 'Check the search options'));
      return;
    }
    const ctrl = new AbortController();
    inflight = ctrl;
    const t0 = performance.now();
    if (!background) status.replaceChildren('Searching…');
    try {
      const res = await searcher.request('retrieve', p, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      const ms = res.usage?.latencyMs ?? performance.now() - t0;
      const sameQuery = list.dataset.request === JSON.stringify(p);
      const shown = list.dataset.ids ?? '';
      const ids = res.hits.map((h) => String(h.id)).join('\n');
      if (!background || !sameQuery || list.childElementCount === 0) {
        show(p, res, ms, !background || settled);
        if (!background && res.hits.length < 3) void suggestRewrite(query, ctrl.signal);
        else if (!background) didYouMean.hidden = true;
      }
      else if (ids !== shown) {
        // Never move results under the reader: offer the new ones.
        pending = { p, res, ms };
        fresh.hidden = false;
        fresh.textContent = 'New results available — show them';
        if (settled) status.replaceChildren('Your documents changed: new results are available.');
      }
    } catch (e) {
      if (e instanceof RcpError && e.code === ErrorCode.Cancelled) return; // superseded by a newer query
      if (background) return; // keep what is shown; the next change or keystroke tries again
      list.replaceChildren();
      hasResults(false);
      delete list.dataset.request;
      shown = undefined;
      status.replaceChildren(errorView(e, 'Search failed'));
    } finally {
      if (inflight === ctrl) inflight = undefined;
    }
  };
  fresh.addEventListener('click', () => {
    if (pending) show(pending.p, pending.res, pending.ms, true);
  });

  /** The controls as a shareable address, replaced in place (no history entry per keystroke). */
  let lastFilter: SearchState['filter'];
  const syncUrl = () => {
    try {
      lastFilter = filters.value();
    } catch {
      /* a half-typed invalid value: the address keeps the last valid filter */
    }
    const state: SearchState = {
      q: q.value.trim() || undefined,
      mode: mode.value || undefined,
      fusion: fusion.value && !fusion.disabled ? fusion.value : undefined,
      k: k.value.trim() && k.value.trim() !== '10' ? k.value.trim() : undefined,
      rerank: rerank.checked && !byId('rerank-field').hidden,
      mmr: mmr.checked ? lambda.value : undefined,
      filter: lastFilter,
    };
    const next = `${location.pathname}${writeSearchState(location.search, state)}${location.hash}`;
    if (next !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, '', next);
  };

  /** Opening a shared address restores its search (a query typed while the engine started wins). */
  const restore = (s: SearchState) => {
    const has = (sel: HTMLSelectElement, v: string | undefined) => v !== undefined && [...sel.options].some((o) => o.value === v);
    if (has(mode, s.mode)) mode.value = s.mode!;
    syncFusion();
    if (has(fusion, s.fusion)) fusion.value = s.fusion!;
    if (s.k) k.value = s.k;
    if (s.rerank && !byId('rerank-field').hidden) rerank.checked = true;
    if (s.mmr && !byId('mmr-field').hidden) {
      mmr.checked = true;
      lambda.value = s.mmr;
      lambda.disabled = false;
    }
    const restoredFilter = s.filter ? filters.restore(s.filter) : false;
    if (s.filter && !restoredFilter) status.replaceChildren('The filter in this address does not fit this index; it was left out.');
    if (s.mode || s.fusion || s.k || s.rerank || s.mmr || restoredFilter) (byId('search-options') as HTMLDetailsElement).open = true;
    if (s.q && !q.value.trim()) q.value = s.q;
  };

  function schedule(delay = SEARCH_DEBOUNCE_MS): void {
    syncUrl();
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
  restore(readSearchState(location.search));
  showEmpty();
  // A query typed while the engine was starting (or one from a shared address) runs now.
  if (q.value.trim()) schedule(0);

  return {
    refresh(settled) {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => void run(true, settled), 0);
    },
    current: () => shown,
    waiting: () => q.value.trim() !== '' && list.childElementCount === 0,
    setEmpty(v) {
      indexEmpty = v;
      showEmpty();
    },
  };
}
