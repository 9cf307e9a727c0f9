/**
 * One fresh browser of any of the three engines behind the cross-browser suite's Tab
 * (e2e/browsers/driver.ts): Firefox and WebKit from that driver, Chromium through playwright-core
 * with the flags the bridges use. For the figures scripts, which measure the same steps in each.
 * Also the memory the browser holds: the resident set of its processes, read from /proc (the one
 * measure every engine gives alike; `performance.memory` is Chromium's only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fnSource, launch, poll, type Tab } from '../../e2e/browsers/driver.ts';

export type AnyBrowserName = 'chromium' | 'firefox' | 'webkit';
export const ANY_BROWSERS: readonly AnyBrowserName[] = ['chromium', 'firefox', 'webkit'];

export interface AnyBrowser {
  readonly name: AnyBrowserName;
  readonly version: string;
  readonly tab: Tab;
  close(): Promise<void>;
}

export async function launchAny(name: AnyBrowserName): Promise<AnyBrowser> {
  if (name !== 'chromium') {
    const s = await launch(name);
    return { name, version: s.version, tab: s.tab, close: () => s.close() };
  }
  const { chromium } = await import('playwright-core');
  const { CHROMIUM, CHROMIUM_ARGS } = await import('../../bridges/browser-host.ts');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await (await browser.newContext()).newPage();
  const run = <T>(script: Parameters<Tab['evaluate']>[0], args: unknown[]): Promise<T> => page.evaluate(`(${fnSource(script)})(...${JSON.stringify(args)})`) as Promise<T>;
  const tab: Tab = {
    goto: async (url) => void (await page.goto(url, { timeout: 120_000 })),
    reload: async () => void (await page.reload({ timeout: 120_000 })),
    url: async () => page.url(),
    evaluate: (script, ...args) => run(script, args),
    waitFor: (script, opts = {}, ...args) => poll(() => run(script, args), opts),
    click: (selector) => page.click(selector),
    type: (selector, text) => page.type(selector, text),
    press: (key) => page.keyboard.press(key === 'Space' ? ' ' : key),
    keys: (text) => page.keyboard.type(text),
    setFiles: (selector, paths) => page.setInputFiles(selector, paths),
    front: () => page.bringToFront(),
    close: () => page.close(),
  };
  return { name, version: `Chromium ${browser.version()}`, tab, close: () => browser.close() };
}

/** Resident bytes of this process's descendants that are not Node or Xvfb: the browser's processes. */
export function browserRss(): number {
  const parent = new Map<number, number>();
  const info = new Map<number, { comm: string; rss: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      parent.set(Number(d), Number(fields[1]));
      info.set(Number(d), { comm, rss: Number(fields[21]) * 4096 });
    } catch {
      // the process ended while listed
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, { comm, rss }] of info) if (descends(pid) && !/^(node|Xvfb|sh|bash|xvfb-run)$/.test(comm)) total += rss;
  return total;
}
