/**
 * One small interface over the two non-Chromium engines the cross-browser suite drives (issue 44):
 *  - Firefox ESR (Debian's firefox-esr) over WebDriver BiDi with puppeteer-core;
 *  - WebKitGTK (Debian's webkit2gtk-driver: WebKitWebDriver running MiniBrowser) with
 *    selenium-webdriver, on an Xvfb display this module starts (WebKitGTK has no headless mode).
 * Both are Debian packages installed by scripts/install.sh; nothing is downloaded.
 *
 * Scripts cross into the page as source text (a function is stringified), so they must not close
 * over Node values: pass those as `args` (JSON-serialisable).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser as PBrowser, type Page as PPage } from 'puppeteer-core';
import { Builder, By, Key, type WebDriver } from 'selenium-webdriver';

export type BrowserName = 'firefox' | 'webkit';
/** The engines the suite runs in; XB_BROWSERS=firefox (or webkit) narrows a local run to one. */
export const BROWSERS: readonly BrowserName[] = (process.env.XB_BROWSERS?.split(',') ?? ['firefox', 'webkit']).filter((b): b is BrowserName => b === 'firefox' || b === 'webkit');

export const FIREFOX = process.env.RCP_FIREFOX ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.RCP_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.RCP_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** A page function, or its source text (an expression, or a function expression called with `args`). */
export type PageScript<T> = string | ((...args: never[]) => T | Promise<T>);

/** Keys `press` knows by name; a single character is pressed as itself. */
export type KeyName = 'Enter' | 'Tab' | 'Escape' | 'ArrowDown' | 'ArrowUp' | 'ArrowLeft' | 'ArrowRight' | 'Backspace' | 'Home' | 'End' | 'Space';
/** A key, optionally with Shift or Control held: 'Tab', 'Shift+Tab', 'Control+k'. */
export type KeyChord = KeyName | `Shift+${KeyName}` | `Control+${string}`;

const splitChord = (chord: KeyChord): { mod?: 'Shift' | 'Control'; key: string } => {
  const m = /^(Shift|Control)\+(.+)$/.exec(chord);
  return m ? { mod: m[1] as 'Shift' | 'Control', key: m[2] } : { key: chord };
};

export interface WaitOptions {
  timeout?: number;
  interval?: number;
  /** Shown in the timeout error. */
  what?: string;
}

/** One tab (top-level browsing context). */
export interface Tab {
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  url(): Promise<string>;
  /** Runs `script` in the page (its promise awaited) and returns its JSON-serialisable result. */
  evaluate<T>(script: PageScript<T>, ...args: unknown[]): Promise<T>;
  /**
   * Polls `script` from Node until it returns a truthy value (async predicates are awaited, page
   * navigations between polls tolerated) and returns that value; throws after `timeout`.
   */
  waitFor<T>(script: PageScript<T>, options?: WaitOptions, ...args: unknown[]): Promise<NonNullable<T>>;
  /** Waits for `selector` to match, then clicks it as a person would. */
  click(selector: string): Promise<void>;
  /** Focuses `selector` and types `text` key by key. */
  type(selector: string, text: string): Promise<void>;
  /** Presses one key (or a chord) on whatever has focus. */
  press(key: KeyChord): Promise<void>;
  /** Types `text` key by key into whatever has focus. */
  keys(text: string): Promise<void>;
  /** Puts files on an `<input type=file>` (through the driver, as the file chooser would). */
  setFiles(selector: string, paths: string[]): Promise<void>;
  /** Makes this tab the selected one (a background tab's timers are throttled). */
  front(): Promise<void>;
  /** Closes this tab. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Firefox: the profile folder to use (kept after close, to relaunch on it); default a fresh temp one. */
  profileDir?: string;
  /** Firefox: extra prefs (e.g. private browsing, a storage quota). */
  prefs?: Record<string, string | number | boolean>;
}

export interface BrowserSession {
  readonly name: BrowserName;
  /** e.g. "firefox/153.8.0" or "WebKitGTK 2.50.6 (MiniBrowser)". */
  readonly version: string;
  /** The first tab, open at launch. */
  readonly tab: Tab;
  newTab(): Promise<Tab>;
  /**
   * Console messages and uncaught errors seen so far, as "type: text" (Firefox: page and its
   * workers over BiDi; WebKit: the page's console only, hooked after each navigation).
   */
  logs(): Promise<string[]>;
  /** Ends the browser at once, as a crash would (no unload, no flush): the profile is kept. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export async function launch(name: BrowserName, options: LaunchOptions = {}): Promise<BrowserSession> {
  return name === 'firefox' ? launchFirefox(options) : launchWebKit(options);
}

/** `script` as a function expression's source, for every driver. */
export function fnSource(script: PageScript<unknown>): string {
  return typeof script === 'string' ? (/^\s*(async\s*)?(\(|function\b|[\w$]+\s*=>)/.test(script) ? script : `() => (${script})`) : script.toString();
}

/** Polls `evaluate` until it returns a truthy value (a navigation between polls is retried); throws after the timeout. */
export async function poll<T>(evaluate: () => Promise<T>, options: WaitOptions): Promise<NonNullable<T>> {
  const timeout = options.timeout ?? 60_000;
  const interval = options.interval ?? 200;
  const end = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await evaluate();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      // A navigation (reload, service-worker restart) between polls destroys the context: retry.
      last = e instanceof Error ? e.message : e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${options.what ?? 'a condition'} (last: ${JSON.stringify(last)?.slice(0, 300)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// ---------------------------------------------------------------- Firefox (puppeteer-core, BiDi)

/** Prefs that keep Firefox off the network (this machine has none) and quiet. */
const FIREFOX_PREFS: Record<string, string | number | boolean> = {
  'browser.shell.checkDefaultBrowser': false,
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'extensions.update.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  // No back/forward cache: a page left must end, with its worker and its database connections
  // (a test deletes the database next, as the Chromium specs do after leaving the page).
  'browser.sessionhistory.max_total_viewers': 0,
  // Service workers on http://localhost (a secure context) without devtools open.
  'dom.serviceWorkers.enabled': true,
  'dom.serviceWorkers.testing.enabled': true,
};

async function launchFirefox(options: LaunchOptions): Promise<BrowserSession> {
  const ownProfile = !options.profileDir;
  const profileDir = options.profileDir ?? mkdtempSync(join(tmpdir(), 'rcp-firefox-'));
  const browser: PBrowser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profileDir,
    extraPrefsFirefox: { ...FIREFOX_PREFS, ...options.prefs },
    protocolTimeout: 180_000,
  });
  const log: string[] = [];
  const watch = (page: PPage) => {
    page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => log.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
    page.on('workercreated', (w) => log.push(`info: worker ${w.url()}`));
  };
  const wrap = (page: PPage): Tab => {
    watch(page);
    const evaluate = <T>(script: PageScript<T>, ...args: unknown[]): Promise<T> =>
      page.evaluate(`(${fnSource(script)})(...${JSON.stringify(args)})`) as Promise<T>;
    return {
      goto: async (url) => void (await page.goto(url, { waitUntil: 'load', timeout: 120_000 })),
      reload: async () => void (await page.reload({ waitUntil: 'load', timeout: 120_000 })),
      url: async () => page.url(),
      evaluate,
      waitFor: (script, opts = {}, ...args) => poll(() => evaluate(script, ...args), opts),
      click: async (selector) => {
        await page.waitForSelector(selector, { visible: true, timeout: 60_000 });
        await page.click(selector);
      },
      type: async (selector, text) => {
        await page.waitForSelector(selector, { timeout: 60_000 });
        await page.focus(selector);
        await page.keyboard.type(text);
      },
      press: async (chord) => {
        const { mod, key } = splitChord(chord);
        const name = (key === 'Space' ? ' ' : key) as Parameters<PPage['keyboard']['press']>[0];
        if (mod) await page.keyboard.down(mod);
        await page.keyboard.press(name);
        if (mod) await page.keyboard.up(mod);
      },
      keys: (text) => page.keyboard.type(text),
      setFiles: async (selector, paths) => {
        const input = await page.waitForSelector(selector, { timeout: 60_000 });
        if (!input) throw new Error(`no ${selector}`);
        await (input as unknown as { uploadFile(...p: string[]): Promise<void> }).uploadFile(...paths);
      },
      front: () => page.bringToFront(),
      close: () => page.close(),
    };
  };
  const first = (await browser.pages())[0] ?? (await browser.newPage());
  const version = await browser.version();
  let closed = false;
  const cleanup = () => {
    if (ownProfile) rmSync(profileDir, { recursive: true, force: true });
  };
  return {
    name: 'firefox',
    version,
    tab: wrap(first),
    newTab: async () => wrap(await browser.newPage()),
    logs: async () => [...log],
    kill: async () => {
      closed = true;
      browser.process()?.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
    },
    close: async () => {
      if (!closed) await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
      closed = true;
      cleanup();
    },
  };
}

// ------------------------------------------------------- WebKitGTK (selenium-webdriver, WebDriver)

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** Starts an Xvfb on a display number it picks itself (-displayfd), so parallel runs never collide. */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('Xvfb did not report a display in 30 s')), 30_000);
    proc.once('error', reject);
    proc.stdio[3]!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${out.trim()}`);
      }
    });
  });
  return { display, proc };
}

const KEYS: Record<KeyName, string> = {
  Enter: Key.ENTER,
  Tab: Key.TAB,
  Escape: Key.ESCAPE,
  ArrowDown: Key.ARROW_DOWN,
  ArrowUp: Key.ARROW_UP,
  ArrowLeft: Key.ARROW_LEFT,
  ArrowRight: Key.ARROW_RIGHT,
  Backspace: Key.BACK_SPACE,
  Home: Key.HOME,
  End: Key.END,
  Space: Key.SPACE,
};

/**
 * Hooks the page's console and uncaught errors into a buffer the session drains (WebKitWebDriver
 * has no log endpoint). Installed after each navigation, so messages before it are missed.
 */
const CONSOLE_HOOK = `(() => {
  const w = window; if (w.__xbLog) return;
  w.__xbLog = [];
  for (const type of ['log', 'info', 'warn', 'error', 'debug']) {
    const orig = console[type].bind(console);
    console[type] = (...a) => { try { w.__xbLog.push(type + ': ' + a.map((x) => x instanceof Error ? x.message : typeof x === 'string' ? x : JSON.stringify(x)).join(' ')); } catch {} orig(...a); };
  }
  w.addEventListener('error', (e) => w.__xbLog.push('pageerror: ' + e.message));
  w.addEventListener('unhandledrejection', (e) => w.__xbLog.push('pageerror: ' + (e.reason && e.reason.message || String(e.reason))));
})()`;

async function launchWebKit(_options: LaunchOptions): Promise<BrowserSession> {
  const xvfb = await startXvfb();
  const port = await freePort();
  // Its own process group, so that killing it takes MiniBrowser and WebKit's helper processes along.
  const driverProc = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], { stdio: 'ignore', detached: true, env: { ...process.env, DISPLAY: xvfb.display } });
  const stopAll = () => {
    try {
      process.kill(-driverProc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    xvfb.proc.kill('SIGKILL');
  };
  let driver: WebDriver;
  try {
    driver = await poll(
      async () =>
        new Builder()
          .usingServer(`http://127.0.0.1:${port}`)
          .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } })
          .build(),
      { timeout: 90_000, interval: 500, what: 'WebKitWebDriver to start a session' },
    );
    await driver.manage().setTimeouts({ script: 180_000, pageLoad: 120_000 });
  } catch (e) {
    stopAll();
    throw e;
  }
  const caps = await driver.getCapabilities();
  const version = `WebKitGTK ${caps.get('browserVersion') ?? '?'} (MiniBrowser)`;
  const log: string[] = [];
  // WebDriver classic drives one window at a time: each tab switches to its window first.
  let chain: Promise<unknown> = Promise.resolve();
  let current = await driver.getWindowHandle();
  const serial = <T>(handle: string, f: () => Promise<T>): Promise<T> => {
    const run = chain.then(async () => {
      if (current !== handle) {
        await driver.switchTo().window(handle);
        current = handle;
      }
      return f();
    });
    chain = run.catch(() => undefined);
    return run;
  };
  const drain = async () => {
    const got = (await driver.executeScript('const l = window.__xbLog || []; window.__xbLog = l.length ? [] : l; return l;').catch(() => [])) as string[];
    log.push(...got);
  };
  const hook = () => driver.executeScript(CONSOLE_HOOK).catch(() => undefined);
  const wrap = (handle: string): Tab => {
    const evaluate = <T>(script: PageScript<T>, ...args: unknown[]): Promise<T> =>
      serial(handle, () => driver.executeScript(`return Promise.resolve((${fnSource(script)})(...arguments[0])).then((v) => v === undefined ? null : v);`, args) as Promise<T>);
    const find = async (selector: string) => {
      await poll(() => driver.executeScript('return !!document.querySelector(arguments[0]);', selector), { timeout: 60_000, what: selector });
      return driver.findElement(By.css(selector));
    };
    return {
      goto: (url) =>
        serial(handle, async () => {
          await drain();
          await driver.get(url);
          await hook();
        }),
      reload: () =>
        serial(handle, async () => {
          await drain();
          await driver.navigate().refresh();
          await hook();
        }),
      url: () => serial(handle, () => driver.getCurrentUrl()),
      evaluate,
      waitFor: (script, opts = {}, ...args) => poll(() => evaluate(script, ...args), opts),
      click: (selector) =>
        serial(handle, async () => {
          const el = await find(selector);
          await poll(() => el.isDisplayed(), { timeout: 60_000, what: `${selector} visible` });
          await el.click();
        }),
      type: (selector, text) => serial(handle, async () => (await find(selector)).sendKeys(text)),
      press: (chord) =>
        serial(handle, async () => {
          const { mod, key } = splitChord(chord);
          const k = KEYS[key as KeyName] ?? key;
          const actions = driver.actions({ async: true });
          const held = mod === 'Shift' ? Key.SHIFT : Key.CONTROL;
          await (mod ? actions.keyDown(held).sendKeys(k).keyUp(held) : actions.sendKeys(k)).perform();
        }),
      keys: (text) => serial(handle, () => driver.actions({ async: true }).sendKeys(text).perform()),
      setFiles: (selector, paths) => serial(handle, async () => (await find(selector)).sendKeys(paths.join('\n'))),
      front: () => serial(handle, async () => undefined),
      close: () =>
        serial(handle, async () => {
          await driver.close();
          const left = await driver.getAllWindowHandles();
          if (left[0]) {
            await driver.switchTo().window(left[0]);
            current = left[0];
          }
        }),
    };
  };
  let closed = false;
  return {
    name: 'webkit',
    version,
    tab: wrap(current),
    newTab: () =>
      serial(current, async () => {
        await driver.switchTo().newWindow('tab');
        current = await driver.getWindowHandle();
        return wrap(current);
      }),
    logs: async () => {
      await serial(current, drain);
      return [...log];
    },
    kill: async () => {
      closed = true;
      stopAll();
    },
    close: async () => {
      if (!closed) await driver.quit().catch(() => undefined);
      closed = true;
      stopAll();
    },
  };
}
