import { expect, type Page } from '@playwright/test';

/** One JSON-RPC answer as the page sees it. */
export type Reply = { result?: any; error?: { code: number; message: string; data?: any } };

/**
 * Opens the bridge page, one RCP session on it, and initializes it; `window.rcp(method, params)`
 * then calls it with hand-written frames (the raw protocol, no client library in between).
 */
export async function openTab(page: Page, clientName = 'e2e'): Promise<Reply> {
  await page.goto('/bridge.html');
  await page.waitForFunction(() => 'rcpBridge' in window);
  return page.evaluate(async (name) => {
    const w = window as unknown as {
      rcpBridge: { open(): Promise<number>; send(s: number, f: string): void };
      __rcpFrame: (s: number, f: string) => void;
      rcp: (method: string, params: unknown) => Promise<unknown>;
    };
    const pending = new Map<number, (m: unknown) => void>();
    w.__rcpFrame = (_sid, frame) => {
      const m = JSON.parse(frame);
      if (typeof m.id === 'number' && !('method' in m)) {
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
    return w.rcp('initialize', { protocolVersion: 1, client: { name, version: '1' } }) as Promise<Reply>;
  }, clientName);
}

/** Calls one RCP method through the page's session. */
export const call = (page: Page, method: string, params: unknown): Promise<Reply> =>
  page.evaluate(([m, p]) => (window as unknown as { rcp(m: string, p: unknown): Promise<Reply> }).rcp(m, p), [method, params] as const);
