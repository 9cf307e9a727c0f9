import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { DEFAULT_ORIGIN, profileOrigin } from './profile-origin.ts';
import { backendArgs, profileBackend, storedBackend, type IdbBackend } from './profile-storage.ts';
import { federateQuery, type FederateArgs } from './federate-args.ts';
import { routeApp } from './static-server.ts';
import { serveRelay, type RelayExchange } from './relay-server.ts';
import type { IndexLoss, RcpBridge } from '../src/protocol/control.ts';

/** Debian's Chromium; never a downloaded browser. */
export const CHROMIUM = process.env.RCP_CHROMIUM ?? '/usr/bin/chromium';

/** Flags that keep Chromium off the closed network and enable WebGPU (SwiftShader) on localhost. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-default-apps',
  '--disable-quic',
  '--enable-unsafe-webgpu',
];

/**
 * With --federate: the worker reaches each engine at a relay host of its own (relay-N.localhost,
 * the bridge's loopback relay server, relay-server.ts). The app is served by interception too, so Chromium does not see it
 * come from loopback and would treat those requests as a public page reaching the local network,
 * refused without a permission prompt; for this browser those checks are off.
 */
const FEDERATE_ARGS = ['--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights'];

export interface BrowserHost {
  page: Page;
  /** The IndexedDB backend this browser was started with (bridges/profile-storage.ts). */
  backend: IdbBackend;
  /** The backend the profile's IndexedDB folder shows (once the engine opened its database): whether Chromium took the flag. */
  storedBackend(): IdbBackend | undefined;
  /** Settles once the engine opened its index and compared it with its record: the loss found, if any (bridge page only). */
  indexLoss(): Promise<IndexLoss | undefined>;
  /** Waits for the same check: why it could not be made (the record kept outside the database was unreadable), if so. */
  indexWarning(): Promise<string | undefined>;
  /** Opens a fresh worker session port; frames from the worker go to `onFrame`. */
  openSession(onFrame: (frame: string) => void): Promise<BrowserSession>;
  close(): Promise<void>;
}

export interface BrowserSession {
  send(frame: string): Promise<void>;
  close(): Promise<void>;
}

export interface HostOptions {
  /** A persistent Chromium profile: IndexedDB survives between runs. */
  profile?: string;
  headed?: boolean;
  /** The built app (default: dist/ at the repository root). */
  distDir?: string;
  log?(line: string): void;
  /**
   * Remote RCP engines the worker federates (bridges/federate-args.ts): the bridge page is told
   * their relay addresses, and `relay` carries its requests to them from Node.
   */
  federate?: FederateArgs;
  /**
   * The bridges' `--model NAME|auto` (bridges/model-arg.ts), already checked against the built
   * models: passed to the bridge page, whose worker runs it and stores it as the profile's choice.
   */
  model?: string;
  relay?: RelayExchange;
  /** `false`: the worker runs without dense models (sparse retrieval only, no model download or embedding). */
  models?: boolean;
  /** The page to open, relative to the served root (default bridge.html). */
  pagePath?: string;
  /** A `window` property that is defined once the page is ready (default rcpBridge). */
  readyGlobal?: string;
  /** Chromium flags added to CHROMIUM_ARGS. */
  extraArgs?: string[];
  /**
   * The IndexedDB backend: 'profile' (the bridges) takes the one the profile remembers, `sqlite`
   * for a new or temporary profile (bridges/profile-storage.ts). Default: Chromium's own
   * (LevelDB), which is what pages opened by people get (the bench and the measure scripts).
   */
  idb?: 'profile' | IdbBackend;
  /** With `idb: 'profile'`: the backend a new profile gets (an existing one must already use it). Default `sqlite`. */
  newProfileIdb?: IdbBackend;
  /**
   * Serve the app cross-origin isolated (COOP + COEP). Off by default: isolation turns on
   * onnxruntime-web's WASM threads, whose nested workers Playwright's interception never sees, so
   * the model would hang. The bench asks for it (measureUserAgentSpecificMemory needs it).
   */
  isolated?: boolean;
}

/**
 * Starts Chromium on the built app's bridge page and returns a handle for opening sessions.
 * The app is served by request interception at the origin the profile remembers (profile-origin.ts),
 * so the origin, and with it the IndexedDB index, is the same on every run and needs no free port.
 */
export async function launchHost(opts: HostOptions = {}): Promise<BrowserHost> {
  const log = opts.log ?? (() => {});
  const dist = resolve(opts.distDir ?? join(import.meta.dirname, '..', 'dist'));
  const pagePath = opts.pagePath ?? 'bridge.html';
  if (!existsSync(join(dist, pagePath))) throw new Error(`no built app at ${dist}: run "npm run build" first`);
  const temp = opts.profile ? undefined : mkdtempSync(join(tmpdir(), 'rcp-profile-'));
  const profile = resolve(opts.profile ?? temp!);
  mkdirSync(profile, { recursive: true });
  const origin = temp ? DEFAULT_ORIGIN : profileOrigin(profile);
  const backend: IdbBackend = opts.idb === 'profile' ? (temp ? (opts.newProfileIdb ?? 'sqlite') : profileBackend(profile, opts.newProfileIdb)) : (opts.idb ?? 'leveldb');
  log(`serving ${dist} at ${origin} (request interception, no port)`);
  log(`IndexedDB backend: ${backend}${backend === 'sqlite' ? ` (${backendArgs(backend).join(' ')})` : " (Chromium's default)"}`);
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: !opts.headed,
    args: [...CHROMIUM_ARGS, ...backendArgs(backend), ...(opts.federate?.engines.length ? FEDERATE_ARGS : []), ...(opts.extraArgs ?? [])],
    serviceWorkers: 'block', // interception must see every request; the bridge page needs no service worker
  });
  const engines = opts.federate?.engines ?? [];
  const relay = opts.relay && engines.length ? await serveRelay(opts.relay, { appOrigin: origin, engines: engines.map((e) => e.id) }) : undefined;
  await routeApp(context, origin, dist, { isolated: opts.isolated === true, passThrough: (url) => relay?.carries(url) === true });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => log(`[page ${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => log(`[page error] ${e.message}`));
  const listeners = new Map<number, (frame: string) => void>();
  await page.exposeFunction('__rcpFrame', (sid: number, frame: string) => listeners.get(sid)?.(frame));
  const params = new URLSearchParams(opts.federate && relay ? federateQuery(opts.federate, relay.urlOf) : '');
  if (opts.model !== undefined) params.set('model', opts.model);
  if (opts.models === false) params.set('models', '0');
  const query = params.size ? `?${params}` : '';
  await page.goto(`${origin}/${pagePath}${query}`);
  await page.waitForFunction((name) => (window as unknown as Record<string, unknown>)[name] !== undefined, opts.readyGlobal ?? 'rcpBridge');
  return {
    page,
    backend,
    storedBackend: () => storedBackend(profile),
    indexLoss: () => page.evaluate(() => (window as unknown as BridgeWindow).rcpBridge.indexLoss()),
    indexWarning: () => page.evaluate(() => (window as unknown as BridgeWindow).rcpBridge.indexWarning()),
    async openSession(onFrame) {
      const sid = await page.evaluate(() => (window as unknown as BridgeWindow).rcpBridge.open());
      listeners.set(sid, onFrame);
      return {
        send: (frame) => page.evaluate(([s, f]) => (window as unknown as BridgeWindow).rcpBridge.send(s, f), [sid, frame] as const),
        close: async () => {
          listeners.delete(sid);
          await page.evaluate((s) => (window as unknown as BridgeWindow).rcpBridge.close(s), sid).catch(() => {});
        },
      };
    },
    async close() {
      await context.close().catch(() => {});
      await relay?.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    },
  };
}

interface BridgeWindow {
  rcpBridge: RcpBridge;
}
