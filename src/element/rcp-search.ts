/**
 * `<rcp-search bundle="/search/">`: site search over a bundle built by `rcp-in-page index`, as a
 * custom element with no framework. The engine (its worker) starts on first use — focus, typing or
 * the dialog opening, or a pointer resting on the box or its button for HOVER_INTENT_MS (the
 * usual lead of a hover before the click) — never at page load, so a page that is only read
 * costs nothing.
 *
 * Attributes: `bundle` (URL of the bundle, required), `mode` (sparse | dense | hybrid; default
 * the engine's), `k` (passages asked for, default 10), `dialog` (a button, Ctrl/⌘-K and `/` open a
 * modal dialog instead of an inline box), `models` and `wasm` (where the model files and the ONNX
 * runtime lie, default `/models/` and `/ort/`; not needed when `mode="sparse"`), `placeholder`,
 * `strings` (JSON: UI strings replacing the built-in ones, strings.ts; also a property), `recent`
 * (how many recent searches are kept in localStorage, default 5, 0 for none). The UI's language
 * is the element's `lang` (or its nearest ancestor's); right-to-left languages render so.
 *
 * Keyboard: ↓/↑ move through the passages (or, in an empty box, the recent searches), Enter opens
 * the active one (its deep link) or runs the recent search, Esc clears the box (or closes the
 * dialog). Screen readers hear the result count from a live region. Themable with CSS custom
 * properties (--rcp-search-*) and ::part (input, results, group, group-title, page-title, count,
 * passage, section, mark, recent, clear-recent, status, filters, filter, trigger, dialog).
 */
import { createInPageEngine, type InPageEngine } from '../client/in-page-engine.ts';
import { facetValues } from '../client/inpage.ts';
import { RcpError } from '../protocol/errors.ts';
import type { FilterNode, Hit, RetrieveParams } from '../protocol/types.ts';
import { anchorOf } from './anchor.ts';
import { opensSearch } from './keys.ts';
import { pageStorage, recentSearches, type RecentSearches } from './recent.ts';
import { renderRecent, renderResults, type ShownOption } from './results-view.ts';
import { builtIn, builtInNow, count, directionOf, ENGLISH, fill, filterList, resolveStrings, type SearchStrings } from './strings.ts';
import { STYLE } from './style.ts';

/** Keystrokes within this many ms make one search (each search cancels the previous one). */
const DEBOUNCE_MS = 80;
/** A pointer resting this long on the box (or the dialog's button) starts the engine before the click. */
const HOVER_INTENT_MS = 60;
/** Keyword fields with more values than this are not offered as a filter (a select would not help). */
const MAX_FILTER_VALUES = 40;
/** Recent searches kept per bundle unless the `recent` attribute says otherwise. */
const RECENT_DEFAULT = 5;
/** Apple platforms name the shortcut's modifier ⌘ (both Ctrl-K and ⌘-K open the dialog everywhere). */
const APPLE = typeof navigator !== 'undefined' && /Mac|iPhone|iPad|iPod/.test(navigator.platform ?? '');
let instances = 0;

type Mode = 'sparse' | 'dense' | 'hybrid';

export class RcpSearchElement extends HTMLElement {
  static readonly observedAttributes = ['placeholder', 'strings', 'lang'];
  /**
   * The id a page gives a section's heading, for the deep link's anchor (default: the page's
   * `meta.sectionIds` entry, written by `rcp-in-page index`, else the heading's slug as GitHub and
   * most generators make it; anchor.ts). Return undefined for no anchor.
   */
  sectionId: (heading: string, pageUrl: string, meta: Readonly<Record<string, unknown>>) => string | undefined = (heading, _url, meta) => anchorOf(heading, meta);
  private readonly root: ShadowRoot;
  private readonly input: HTMLInputElement;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private readonly filters: HTMLElement;
  private readonly box: HTMLElement;
  private readonly label: HTMLLabelElement;
  private readonly clearRecentButton: HTMLButtonElement;
  private trigger?: HTMLButtonElement;
  private ui: SearchStrings = ENGLISH;
  private uiLang = 'en';
  private stringsProperty: Partial<Record<keyof SearchStrings, unknown>> | undefined;
  private recentStore: RecentSearches | undefined;
  /** In `dialog` mode (decided when first connected: attributes are not there in the constructor). */
  private dialogEl?: HTMLDialogElement;
  private laidOut = false;
  private warmArmed = false;
  private readonly idBase = `rcp-search-${++instances}`;
  private engine: Promise<InPageEngine> | undefined;
  private shown: ShownOption[] = [];
  private active = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: AbortController | undefined;
  private readonly filterValues = new Map<string, string>();
  private readonly onGlobalKey = (ev: KeyboardEvent): void => {
    if (opensSearch(ev, ev.composedPath()[0])) {
      ev.preventDefault();
      this.open();
    }
  };

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    const box = document.createElement('div');
    box.className = 'box';
    const label = (this.label = document.createElement('label'));
    label.className = 'visually-hidden';
    label.htmlFor = `${this.idBase}-q`;
    this.input = document.createElement('input');
    Object.assign(this.input, { id: `${this.idBase}-q`, type: 'search', autocomplete: 'off', spellcheck: false });
    this.input.setAttribute('part', 'input');
    this.input.setAttribute('role', 'combobox');
    this.input.setAttribute('aria-expanded', 'false');
    this.input.setAttribute('aria-autocomplete', 'list');
    this.input.setAttribute('aria-controls', `${this.idBase}-list`);
    this.filters = document.createElement('div');
    this.filters.setAttribute('part', 'filters');
    this.filters.hidden = true;
    this.status = document.createElement('p');
    this.status.setAttribute('part', 'status');
    this.status.setAttribute('role', 'status');
    this.status.setAttribute('aria-live', 'polite');
    this.list = document.createElement('div');
    this.list.id = `${this.idBase}-list`;
    this.list.setAttribute('role', 'listbox');
    this.list.setAttribute('part', 'results');
    this.list.hidden = true;
    this.clearRecentButton = document.createElement('button');
    this.clearRecentButton.type = 'button';
    this.clearRecentButton.setAttribute('part', 'clear-recent');
    this.clearRecentButton.hidden = true;
    this.clearRecentButton.addEventListener('click', () => {
      this.recent()?.clear();
      this.input.focus();
      this.showRecent();
    });
    box.append(label, this.input, this.filters, this.status, this.clearRecentButton, this.list);
    this.box = box;
    this.root.append(style);
    this.input.addEventListener('focus', () => {
      void this.start().catch(() => undefined); // said by start()
      if (!this.input.value.trim()) this.showRecent();
    });
    this.input.addEventListener('input', () => this.schedule());
    this.input.addEventListener('keydown', (ev) => this.onKey(ev));
    this.list.addEventListener('click', (ev) => {
      const opt = (ev.target as Element).closest('[role=option]');
      const i = this.shown.findIndex((p) => p.id === opt?.id);
      if (i >= 0) this.choose(i);
    });
  }

  connectedCallback(): void {
    if (!this.laidOut) this.layOut();
    this.applyStrings();
    this.warmOnHover();
    if (this.dialogEl) document.addEventListener('keydown', this.onGlobalKey);
  }

  /** Inline box, or (attribute `dialog`) a button that opens it in a modal dialog. */
  private layOut(): void {
    this.laidOut = true;
    if (!this.hasAttribute('dialog')) {
      this.root.append(this.box);
      return;
    }
    const trigger = document.createElement('button');
    trigger.type = 'button';
    trigger.setAttribute('part', 'trigger');
    trigger.setAttribute('aria-keyshortcuts', 'Control+K Meta+K /');
    trigger.setAttribute('aria-haspopup', 'dialog');
    trigger.addEventListener('click', () => this.open());
    this.trigger = trigger;
    const dialog = (this.dialogEl = document.createElement('dialog'));
    dialog.setAttribute('part', 'dialog');
    dialog.append(this.box);
    // A click on the backdrop (the dialog itself, outside the box) closes it.
    dialog.addEventListener('click', (ev) => ev.target === dialog && dialog.close());
    this.root.append(trigger, dialog);
  }

  /** Starts the engine when a pointer rests on the element (or a touch begins on it), once. */
  private warmOnHover(): void {
    if (this.engine || this.warmArmed) return;
    this.warmArmed = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cancel = () => clearTimeout(timer);
    const warm = () => {
      cancel();
      this.removeEventListener('pointerenter', rest);
      this.removeEventListener('pointerleave', cancel);
      this.removeEventListener('touchstart', warm);
      void this.start().catch(() => undefined); // a failed start is said when the box is used
    };
    const rest = () => {
      cancel();
      timer = setTimeout(warm, HOVER_INTENT_MS);
    };
    this.addEventListener('pointerenter', rest);
    this.addEventListener('pointerleave', cancel);
    this.addEventListener('touchstart', warm, { passive: true });
  }

  disconnectedCallback(): void {
    document.removeEventListener('keydown', this.onGlobalKey);
  }

  attributeChangedCallback(): void {
    if (this.laidOut) this.applyStrings();
  }

  /** The UI strings in use (built-in for the element's language, with the site's on top). */
  get strings(): Readonly<SearchStrings> {
    return this.ui;
  }

  /** Replaces UI strings (any subset of SearchStrings; null for the built-in ones only). */
  set strings(value: Partial<Record<keyof SearchStrings, unknown>> | null | undefined) {
    this.stringsProperty = value ?? undefined;
    if (this.laidOut) this.applyStrings();
  }

  /** The UI language: the element's `lang`, else its nearest ancestor's, else the document's. */
  private uiLanguage(): string {
    return this.closest('[lang]')?.getAttribute('lang')?.trim() || document.documentElement.lang || '';
  }

  /** Words and direction from the language, the `strings` attribute and the property (in that order). */
  private applyStrings(): void {
    const lang = this.uiLanguage();
    const base = builtInNow(lang);
    // Another language's strings are a chunk of their own: English until it has come.
    if (!base) void builtIn(lang).then(() => this.uiLanguage() === lang && this.applyStrings());
    let fromAttribute: unknown;
    const json = this.getAttribute('strings');
    if (json) {
      try {
        fromAttribute = JSON.parse(json);
      } catch {
        console.warn('<rcp-search>: the strings attribute is not JSON; the built-in strings are used');
      }
    }
    const merged = { ...(isObject(fromAttribute) ? fromAttribute : {}), ...(this.stringsProperty ?? {}) };
    const { strings, ignored } = resolveStrings(base ?? ENGLISH, merged);
    if (ignored.length) console.warn(`<rcp-search>: strings left out (unknown, or not a string): ${ignored.join(', ')}`);
    this.ui = strings;
    this.uiLang = lang || 'en';
    this.label.textContent = strings.label;
    this.input.placeholder = this.getAttribute('placeholder') ?? strings.placeholder;
    this.list.setAttribute('aria-label', strings.results);
    this.clearRecentButton.textContent = strings.clearRecent;
    this.dialogEl?.setAttribute('aria-label', strings.label);
    if (this.trigger) {
      const kbd = document.createElement('kbd');
      kbd.textContent = APPLE ? '⌘ K' : 'Ctrl K';
      this.trigger.replaceChildren(strings.trigger, ' ', kbd);
    }
    // A language written right to left renders so, unless the element says its own direction.
    const dir = this.hasAttribute('dir') ? undefined : directionOf(lang);
    for (const el of [this.box, this.trigger]) {
      if (!el) continue;
      if (dir) el.dir = dir;
      else el.removeAttribute('dir');
    }
  }

  /** Recent searches of this element's bundle (per absolute bundle URL), or undefined with none kept. */
  private recent(): RecentSearches | undefined {
    if (!this.recentStore) {
      const bundle = this.getAttribute('bundle');
      if (!bundle) return undefined;
      const n = Number(this.getAttribute('recent') ?? RECENT_DEFAULT);
      const max = Number.isInteger(n) && n >= 0 ? Math.min(n, 50) : RECENT_DEFAULT;
      let url = bundle;
      try {
        url = new URL(bundle, document.baseURI).href;
      } catch {
        // kept as written
      }
      this.recentStore = recentSearches(pageStorage(), url, max);
    }
    return this.recentStore;
  }

  /** In an empty box: the recent searches as options (and the button clearing them). */
  private showRecent(): void {
    const queries = this.recent()?.list() ?? [];
    this.shown = renderRecent(this.list, queries, this.idBase, this.ui.recent);
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
    this.list.hidden = queries.length === 0;
    this.clearRecentButton.hidden = queries.length === 0;
    this.input.setAttribute('aria-expanded', String(queries.length > 0));
  }

  /** Opens the dialog (in `dialog` mode) and focuses the box. */
  open(): void {
    if (this.dialogEl && !this.dialogEl.open) this.dialogEl.showModal();
    this.input.focus();
  }

  /** Runs `query` now (as if typed). */
  search(query: string): Promise<void> {
    this.input.value = query;
    return this.run();
  }

  /** The engine, started on first use with the element's attributes. */
  private start(): Promise<InPageEngine> {
    if (!this.engine) {
      const bundle = this.getAttribute('bundle');
      const mode = this.mode();
      const options = {
        bundle: bundle ?? '',
        models: mode !== 'sparse',
        ...(this.getAttribute('models') ? { modelBase: this.getAttribute('models')! } : {}),
        ...(this.getAttribute('wasm') ? { wasmPaths: this.getAttribute('wasm')! } : {}),
      };
      this.engine = bundle ? sharedEngine(options) : Promise.reject(new Error('the element has no bundle attribute'));
      this.engine.then((e) => this.loadFilters(e), (e: unknown) => this.say(fill(this.ui.unavailable, { reason: reason(e) })));
    }
    return this.engine;
  }

  private mode(): Mode | undefined {
    const m = this.getAttribute('mode');
    return m === 'sparse' || m === 'dense' || m === 'hybrid' ? m : undefined;
  }

  private k(): number {
    const k = Number(this.getAttribute('k') ?? 10);
    return Number.isInteger(k) && k > 0 ? Math.min(k, 100) : 10;
  }

  /** A select per keyword field the bundle's documents carry a few values of (x-inpage/facets). */
  private async loadFilters(engine: InPageEngine): Promise<void> {
    const fields = engine.serverInfo?.capabilities.filter?.fields;
    if (!fields || Array.isArray(fields)) return;
    for (const [field, type] of Object.entries(fields)) {
      if (type !== 'keyword') continue;
      const r = await facetValues(engine, field, MAX_FILTER_VALUES + 1).catch(() => undefined);
      const values = (r?.values ?? []).filter((v) => typeof v.value === 'string');
      if (values.length < 2 || values.length > MAX_FILTER_VALUES) continue;
      const label = document.createElement('label');
      label.setAttribute('part', 'filter');
      label.append(`${field} `);
      const select = document.createElement('select');
      select.append(new Option(fill(this.ui.anyValue, { field }), ''), ...values.map((v) => new Option(`${String(v.value)} (${v.count})`, String(v.value))));
      select.addEventListener('change', () => {
        if (select.value) this.filterValues.set(field, select.value);
        else this.filterValues.delete(field);
        void this.run();
      });
      label.append(select);
      this.filters.append(label);
      this.filters.hidden = false;
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), DEBOUNCE_MS);
  }

  private async run(): Promise<void> {
    const query = this.input.value.trim();
    this.inflight?.abort();
    if (!query) return this.clear();
    const signal = (this.inflight = new AbortController()).signal;
    let engine: InPageEngine;
    try {
      engine = await this.start();
    } catch {
      return; // said by start()
    }
    const filters: FilterNode[] = [...this.filterValues].map(([field, value]) => ({ field, op: 'eq', value }));
    const params: RetrieveParams = { query, k: this.k(), includeText: true, _meta: { 'x-inpage-matches': true } };
    const mode = this.mode();
    if (mode) params.mode = mode;
    if (filters.length) params.filter = filters.length === 1 ? filters[0] : { and: filters };
    try {
      const result = await engine.request('retrieve', params, { signal });
      if (signal.aborted) return;
      this.show(result.hits, query);
    } catch (e) {
      if (signal.aborted) return;
      // What is unavailable is said; results already shown stay (the bundle may serve other queries).
      this.say(fill(this.ui.partial, { reason: reason(e) }));
    }
  }

  private show(hits: readonly Hit[], query: string): void {
    const lang = this.uiLang;
    this.shown = renderResults(this.list, hits, this.idBase, {
      sections: (n) => count(this.ui.sections, n, lang),
      sectionId: (heading, url, meta) => this.sectionId(heading, url, meta),
    });
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
    this.clearRecentButton.hidden = true;
    const pages = new Set(hits.map((h) => h.citation?.source ?? h.id)).size;
    this.list.hidden = hits.length === 0;
    this.input.setAttribute('aria-expanded', String(hits.length > 0));
    if (hits.length > 0) {
      this.say(fill(this.ui.summary, { results: count(this.ui.result, hits.length, lang), pages: count(this.ui.page, pages, lang) }));
    } else if (this.filterValues.size > 0) {
      this.say(fill(this.ui.noResultsFiltered, { query, filters: filterList(this.filterValues, lang) }));
    } else {
      this.say(fill(this.ui.noResults, { query }));
    }
  }

  /** Empties the list; in a focused box, the recent searches take its place unless `recent` is false (Esc). */
  private clear(recent = true): void {
    // A search still waiting or in flight must not bring the results back.
    clearTimeout(this.timer);
    this.inflight?.abort();
    this.list.replaceChildren();
    this.list.hidden = true;
    this.shown = [];
    this.input.setAttribute('aria-expanded', 'false');
    this.say('');
    this.clearRecentButton.hidden = true;
    if (recent && this.root.activeElement === this.input) this.showRecent();
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      if (this.shown.length === 0) return;
      ev.preventDefault();
      const step = ev.key === 'ArrowDown' ? 1 : -1;
      this.select((this.active + step + this.shown.length) % this.shown.length);
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      if (this.active >= 0) this.choose(this.active);
      else if (this.shown.length > 0 && this.input.value.trim()) this.choose(0);
      else void this.run();
    } else if (ev.key === 'Escape' && this.dialogEl?.open) {
      // A search input would spend the first Esc on clearing itself: in the dialog, Esc closes.
      ev.preventDefault();
      this.dialogEl.close();
    } else if (ev.key === 'Escape' && this.input.value) {
      ev.preventDefault();
      this.input.value = '';
      this.clear(false);
    } else if (ev.key === 'Escape' && !this.list.hidden) {
      // An empty box showing recent searches: Esc hides them.
      ev.preventDefault();
      this.clear(false);
    }
  }

  private select(i: number): void {
    const prev = this.shown[this.active];
    if (prev) this.root.getElementById(prev.id)?.setAttribute('aria-selected', 'false');
    this.active = i;
    const opt = this.root.getElementById(this.shown[i].id);
    opt?.setAttribute('aria-selected', 'true');
    opt?.scrollIntoView({ block: 'nearest' });
    this.input.setAttribute('aria-activedescendant', this.shown[i].id);
  }

  /** Option `i`: a recent search runs its query; a passage is followed (and its query kept as recent). */
  private choose(i: number): void {
    const opt = this.shown[i];
    if (opt?.query !== undefined) {
      this.input.value = opt.query;
      void this.run();
      return;
    }
    const query = this.input.value.trim();
    if (query && opt?.href) this.recent()?.add(query);
    this.go(i);
  }

  /** Follows passage `i`'s deep link (an `rcp-search-navigate` event may cancel it, e.g. for a router). */
  private go(i: number): void {
    const href = this.shown[i]?.href;
    if (!href) return;
    const ev = new CustomEvent('rcp-search-navigate', { detail: { href }, cancelable: true, bubbles: true, composed: true });
    if (this.dispatchEvent(ev)) location.assign(href);
  }
}

/** Elements of one page with the same bundle and models share one engine (one worker). */
const engines = new Map<string, Promise<InPageEngine>>();
function sharedEngine(o: { bundle: string; models: boolean; modelBase?: string; wasmPaths?: string }): Promise<InPageEngine> {
  const key = JSON.stringify(o);
  let e = engines.get(key);
  if (!e) {
    e = createInPageEngine({ ...o, client: { clientInfo: { name: 'rcp-search', version: '1' } } });
    e.catch(() => engines.delete(key)); // a failed start is tried again on the next use
    engines.set(key, e);
  }
  return e;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function reason(e: unknown): string {
  if (e instanceof RcpError) return String(e.data?.detail ?? e.message);
  return e instanceof Error ? e.message : String(e);
}

/** Registers `<rcp-search>` (once; a second call is a no-op). */
export function defineRcpSearch(name = 'rcp-search'): void {
  if (!customElements.get(name)) customElements.define(name, class extends RcpSearchElement {});
}
