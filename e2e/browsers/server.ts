/**
 * The built app (dist/, from `vite build`) served by `vite preview` on localhost, behind a thin
 * gate the cross-browser suite controls. Playwright's Chromium specs answer some paths themselves
 * (context.route: /models/config.json pinned to the static model, a model file replaced) and go
 * offline with context.setOffline; neither WebDriver BiDi in Firefox nor WebKitWebDriver offers
 * both, so the gate does it on the server side for every browser alike:
 *  - `override(path, body)` answers one path with fixed bytes (undefined: back to vite's);
 *  - `offline = true` drops every connection, as an unreachable server would;
 *  - `/__blank` is an empty page of the origin (a place to reset storage before the app runs).
 * The page's origin is the gate's (http://localhost:PORT), so storage and the service worker are its.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

export interface AppServer {
  /** http://localhost:PORT */
  origin: string;
  override(path: string, body: string | Uint8Array | undefined, contentType?: string): void;
  /** Forget every override and go online. */
  resetOverrides(): void;
  offline: boolean;
  /** Paths requested through the gate since the last call (to check what a page fetched). */
  takeRequests(): string[];
  close(): Promise<void>;
}

async function waitHttp(url: string, timeout: number): Promise<void> {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${url} did not answer in ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Starts `vite preview` on `port + 1` and the gate on `port` (BROWSERS_PORT, default 4183). */
export async function startApp(port = Number(process.env.BROWSERS_PORT ?? 4183)): Promise<AppServer> {
  const upstream = port + 1;
  const vite: ChildProcess = spawn(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'preview', '--host', 'localhost', '--port', String(upstream), '--strictPort'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const overrides = new Map<string, { body: string | Uint8Array; type: string }>();
  let requests: string[] = [];
  const state = { offline: false };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (state.offline) return void req.socket.destroy();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const o = overrides.get(path);
    if (o) return void res.writeHead(200, { 'content-type': o.type, 'cache-control': 'no-store' }).end(o.body);
    if (path === '/__blank') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title>');
    const up = request({ host: 'localhost', port: upstream, method: req.method, path: req.url, headers: { ...req.headers, host: `localhost:${upstream}` } }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(port, 'localhost', resolve));
  const origin = `http://localhost:${port}`;
  await waitHttp(`http://localhost:${upstream}/index.html`, 60_000);
  return {
    origin,
    override: (path, body, type = 'application/octet-stream') => (body === undefined ? overrides.delete(path) : overrides.set(path, { body, type })),
    resetOverrides: () => {
      overrides.clear();
      state.offline = false;
    },
    get offline() {
      return state.offline;
    },
    set offline(v: boolean) {
      state.offline = v;
    },
    takeRequests: () => {
      const r = requests;
      requests = [];
      return r;
    },
    close: async () => {
      vite.kill();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
