/**
 * One fresh browser with one page, in any of the three engines, for the measurement scripts:
 * Debian's Chromium through playwright-core, Firefox ESR through puppeteer-core over WebDriver
 * BiDi, WebKitGTK's MiniBrowser through WebKitWebDriver (e2e/browsers/driver.ts, its own Xvfb). Each
 * start is a new profile (a first open). Only what the scripts need: navigate, evaluate a script
 * (given as a string, so every driver runs it as is), console lines, close.
 */
export type BrowserName = 'chromium' | 'firefox' | 'webkit';
export const BROWSERS: readonly BrowserName[] = ['chromium', 'firefox', 'webkit'];

export interface OpenPage {
  readonly browser: BrowserName;
  /** The browser's version string. */
  readonly version: string;
  goto(url: string): Promise<void>;
  /** Evaluates `expression` (a string) in the page; its value, which must be JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** Console lines seen so far (pages and, where the driver reports them, workers). */
  readonly console: string[];
  close(): Promise<void>;
}

export async function openBrowser(name: BrowserName): Promise<OpenPage> {
  if (name === 'chromium') return openChromium();
  if (name === 'firefox') return openFirefox();
  return openWebKit();
}

async function openChromium(): Promise<OpenPage> {
  const { chromium } = await import('playwright-core');
  const { CHROMIUM, CHROMIUM_ARGS } = await import('../../bridges/browser-host.ts');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext();
  const page = await context.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('worker', (w) => w.on('console', (m) => lines.push(`worker ${m.type()}: ${m.text()}`)));
  return {
    browser: 'chromium',
    version: browser.version(),
    goto: async (url) => void (await page.goto(url)),
    evaluate: (expression) => page.evaluate(expression),
    console: lines,
    close: () => browser.close(),
  };
}

async function openFirefox(): Promise<OpenPage> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.RCP_FIREFOX ?? '/usr/bin/firefox-esr',
    headless: true,
    // No updates, telemetry or other requests of the browser's own.
    extraPrefsFirefox: { 'app.update.enabled': false, 'network.captive-portal-service.enabled': false, 'datareporting.policy.dataSubmissionEnabled': false },
  });
  const page = await browser.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  return {
    browser: 'firefox',
    version: await browser.version(),
    goto: async (url) => void (await page.goto(url)),
    evaluate: (expression) => page.evaluate(expression) as Promise<never>,
    console: lines,
    close: () => browser.close(),
  };
}

/** WebKitGTK through the cross-browser suite's driver (WebKitWebDriver, MiniBrowser, its own Xvfb). */
async function openWebKit(): Promise<OpenPage> {
  const { launch } = await import('../../e2e/browsers/driver.ts');
  const session = await launch('webkit');
  // WebKitWebDriver reports no console: the driver hooks the page's, read back here at close.
  const lines: string[] = [];
  return {
    browser: 'webkit',
    version: session.version,
    goto: (url) => session.tab.goto(url),
    evaluate: (expression) => session.tab.evaluate(`() => (${expression})`),
    console: lines,
    close: async () => {
      lines.push(...(await session.logs().catch(() => [])));
      await session.close();
    },
  };
}
