/**
 * The Chromium specs' helpers (e2e/support/playground.ts, tools/lib/rcp-page.ts) ported to the
 * cross-browser driver: the same selectors, the same bridge page and raw RCP frames.
 */
import type { Reply } from '../../tools/lib/rcp-page.ts';
import type { Tab, WaitOptions } from './driver.ts';

export type { Reply };

/**
 * Forgets everything the origin stored (service workers, caches, IndexedDB, OPFS, web storage)
 * from an empty page of it, so each test starts as a first visit. No other tab of the origin may
 * be open (its worker would hold the database: the delete would block).
 */
export async function resetOrigin(tab: Tab, origin: string): Promise<void> {
  await tab.goto('about:blank'); // the app's page ends first, and its worker with it
  await tab.goto(`${origin}/__blank`);
  const left = await tab.evaluate(async () => {
    const blocked: string[] = [];
    for (const r of (await navigator.serviceWorker?.getRegistrations()) ?? []) await r.unregister();
    for (const k of (await globalThis.caches?.keys()) ?? []) await caches.delete(k);
    for (const { name } of (await indexedDB.databases?.()) ?? [])
      if (name)
        await new Promise<void>((ok) => {
          const r = indexedDB.deleteDatabase(name);
          // Blocked stays pending in some engines (a connection of a page just left): said, not waited on.
          const t = setTimeout(() => (blocked.push(name), ok()), 20_000);
          r.onsuccess = r.onerror = () => (clearTimeout(t), ok());
          r.onblocked = () => (clearTimeout(t), blocked.push(name), ok());
        });
    try {
      const dir = await navigator.storage.getDirectory();
      for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) await dir.removeEntry(name, { recursive: true });
    } catch {
      // no OPFS in this browser or profile
    }
    localStorage.clear();
    sessionStorage.clear();
    return blocked;
  });
  if (left.length) throw new Error(`resetOrigin: ${left.join(', ')} still open in another tab`);
}

/** The text of the first element matching `selector` ('' if none). */
export const textOf = (tab: Tab, selector: string): Promise<string> => tab.evaluate((s: string) => document.querySelector(s)?.textContent ?? '', selector);

/** Waits until the first `selector` exists and its text matches `pattern`; returns the text. */
export async function waitText(tab: Tab, selector: string, pattern: RegExp | string, options: WaitOptions = {}): Promise<string> {
  const source = typeof pattern === 'string' ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern.source;
  const flags = typeof pattern === 'string' ? '' : pattern.flags;
  return tab.waitFor(
    (s: string, src: string, fl: string) => {
      const t = document.querySelector(s)?.textContent ?? '';
      return new RegExp(src, fl).test(t) ? t : null;
    },
    { what: `${selector} to match ${pattern}`, timeout: 60_000, ...options },
    selector,
    source,
    flags,
  );
}

/** Whether `selector` matches an element that is rendered (not hidden, has a box). */
export const isVisible = (tab: Tab, selector: string): Promise<boolean> =>
  tab.evaluate((s: string) => {
    const el = document.querySelector(s) as HTMLElement | null;
    return !!el && !el.closest('[hidden]') && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  }, selector);

export async function waitVisible(tab: Tab, selector: string, options: WaitOptions = {}): Promise<void> {
  await tab.waitFor(
    (s: string) => {
      const el = document.querySelector(s) as HTMLElement | null;
      return !!el && !el.closest('[hidden]') && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    },
    { what: `${selector} visible`, timeout: 60_000, ...options },
    selector,
  );
}

export async function waitHidden(tab: Tab, selector: string, options: WaitOptions = {}): Promise<void> {
  await tab.waitFor(
    (s: string) => {
      const el = document.querySelector(s) as HTMLElement | null;
      return !el || !!el.closest('[hidden]') || el.getClientRects().length === 0;
    },
    { what: `${selector} hidden`, timeout: 30_000, ...options },
    selector,
  );
}

/** Opens the playground and waits for the session (e2e/support/playground.ts openPlayground); `sample: false` as skipSample. */
export async function openPlayground(tab: Tab, origin: string, options: { sample?: boolean } = {}): Promise<void> {
  if (options.sample === false) {
    await tab.goto(`${origin}/__blank`);
    await tab.evaluate(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
  }
  await tab.goto(`${origin}/index.html`);
  await waitText(tab, '#status', 'Connected', { timeout: 120_000 });
}

/** Waits until the sample corpus finished seeding. */
export const waitForSeed = (tab: Tab, timeout = 300_000) => waitText(tab, '#progress-done', /Imported \d+ documents/, { timeout });

/** Sets the query box as Playwright's fill does (value, then an input event) and waits for its answer. */
export async function search(tab: Tab, query: string, timeout = 60_000): Promise<void> {
  await tab.evaluate((q: string) => {
    const box = document.querySelector('#q') as HTMLInputElement;
    box.focus();
    box.value = q;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }, query);
  await searched(tab, query, timeout);
}

/** Waits until the results shown answer `query` (not an earlier, partial one). */
export async function searched(tab: Tab, query: string, timeout = 60_000): Promise<void> {
  const sel = `#hits[data-request*='"query":${JSON.stringify(query)}']`;
  await tab.waitFor((s: string) => !!document.querySelector(s), { what: sel, timeout }, sel);
}

/** Shows one playground area through its navigation link. */
export async function showArea(tab: Tab, area: 'search' | 'documents' | 'import' | 'models' | 'engines' | 'learn'): Promise<void> {
  await tab.click(`#areas-nav a[data-area="${area}"]`);
  await waitVisible(tab, `#area-${area}`);
}

/** Dense model ready and every vector embedded and stored (waitForVectors). */
export async function waitForVectors(tab: Tab, timeout = 180_000): Promise<void> {
  await tab.waitFor(
    async () => {
      const c = (window as unknown as { rcpClient?: { status(): Promise<{ ready: boolean; pendingVectors?: number; unstoredVectors?: number }> } }).rcpClient;
      if (!c) return false;
      const s = await c.status();
      return s.ready && (s.pendingVectors ?? 0) === 0 && (s.unstoredVectors ?? 0) === 0;
    },
    { what: 'vectors embedded and stored', timeout, interval: 250 },
  );
}

/** The playground client's status (window.rcpClient). */
export const clientStatus = (tab: Tab) =>
  tab.evaluate(() => (window as unknown as { rcpClient: { status(): Promise<Record<string, unknown> & { documents: number; ready: boolean }> } }).rcpClient.status());

/**
 * Opens the bridge page and one raw RCP session on it (tools/lib/rcp-page.ts openTab): afterwards
 * `call` sends hand-written frames. `query` is appended to the page URL (e.g. `?bundle=/site/`).
 */
export async function openBridge(tab: Tab, origin: string, clientName = 'xb', initExtra: Record<string, unknown> = {}, query = ''): Promise<Reply> {
  await tab.goto(`${origin}/bridge.html${query}`);
  await tab.waitFor(() => 'rcpBridge' in window, { what: 'rcpBridge', timeout: 60_000 });
  return tab.evaluate(
    async (name: string, extra: Record<string, unknown>) => {
      const w = window as unknown as {
        rcpBridge: { open(): Promise<number>; send(s: number, f: string): void };
        __rcpFrame: (s: number, f: string) => void;
        __logs: unknown[];
        __progress: unknown[];
        __replies: Record<number, unknown>;
        rcp: (method: string, params: unknown) => Promise<unknown>;
      };
      const pending = new Map<number, (m: unknown) => void>();
      w.__logs = [];
      w.__progress = [];
      w.__rcpFrame = (_sid, frame) => {
        const m = JSON.parse(frame);
        if (m.method === 'notifications/log') w.__logs.push(m.params);
        else if (m.method === 'notifications/progress') w.__progress.push(m.params);
        else if (typeof m.id === 'number' && !('method' in m)) {
          pending.get(m.id)?.(m);
          pending.delete(m.id);
        }
      };
      const sid = await w.rcpBridge.open();
      let next = 1;
      w.rcp = (method, params) =>
        new Promise((ok) => {
          const id = next++;
          pending.set(id, ok);
          w.rcpBridge.send(sid, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        });
      return w.rcp('initialize', { protocolVersion: 1, client: { name, version: '1' }, ...extra }) as Promise<Reply>;
    },
    clientName,
    initExtra,
  );
}

/** Calls one RCP method through the tab's bridge session. */
export const call = (tab: Tab, method: string, params: unknown): Promise<Reply> =>
  tab.evaluate((m: string, p: unknown) => (window as unknown as { rcp(m: string, p: unknown): Promise<Reply> }).rcp(m, p), method, params);

/** Waits until the session received a `notifications/progress` with `token` above `atLeast`. */
export const progressSeen = (tab: Tab, token: string, atLeast = 0) =>
  tab.waitFor(
    (t: string, min: number) => (window as unknown as { __progress: { progressToken: unknown; progress: number }[] }).__progress.some((p) => p.progressToken === t && p.progress > min),
    { what: `progress ${token}`, timeout: 60_000 },
    token,
    atLeast,
  );

/** The `notifications/log` params this tab's session received so far. */
export const logsOf = <T = unknown>(tab: Tab): Promise<T[]> => tab.evaluate(() => (window as unknown as { __logs: T[] }).__logs);

/** Documents like durability.spec.ts's. */
export const docs = (prefix: string, n: number, words: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, text: `${words} number ${i}. `.repeat(30), meta: { title: `${prefix} ${i}` } }));
