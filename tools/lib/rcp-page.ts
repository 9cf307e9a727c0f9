import { type Page } from '@playwright/test';

/** One JSON-RPC answer as the page sees it. */
export type Reply = { result?: any; error?: { code: number; message: string; data?: any } };

/**
 * Opens the bridge page, one RCP session on it, and initializes it (`initExtra` is merged into the
 * initialize params, e.g. to opt in to logs); `window.rcp(method, params)` then calls it with
 * hand-written frames (the raw protocol, no client library in between). `query` is appended to the
 * page URL (e.g. `?deadline.embed=300000`: a longer per-method deadline, bridges/page.ts).
 */
export async function openTab(page: Page, clientName = 'e2e', initExtra: Record<string, unknown> = {}, query = ''): Promise<Reply> {
  await page.goto(`/bridge.html${query}`);
  await page.waitForFunction(() => 'rcpBridge' in window);
  return page.evaluate(async ([name, extra]) => {
    const w = window as unknown as {
      rcpBridge: { open(): Promise<number>; send(s: number, f: string): void };
      __rcpFrame: (s: number, f: string) => void;
      __logs: unknown[];
      __progress: unknown[];
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
  }, [clientName, initExtra] as const);
}

/** The `notifications/log` params this page's session received so far (when it opted in to logs). */
export const logsOf = <T = unknown>(page: Page): Promise<T[]> => page.evaluate(() => (window as unknown as { __logs: T[] }).__logs);

/** Waits until this page's session received a `notifications/progress` with `token` and progress above `atLeast`. */
export const progressSeen = (page: Page, token: string, atLeast = 0) =>
  page.waitForFunction(
    ([t, min]) => (window as unknown as { __progress: { progressToken: unknown; progress: number }[] }).__progress.some((p) => p.progressToken === t && p.progress > min),
    [token, atLeast] as const,
  );

/** Calls one RCP method through the page's session. */
export const call = (page: Page, method: string, params: unknown): Promise<Reply> =>
  page.evaluate(([m, p]) => (window as unknown as { rcp(m: string, p: unknown): Promise<Reply> }).rcp(m, p), [method, params] as const);
