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
  // Never left behind, even when the run is interrupted.
  const stopVite = () => vite.kill();
  process.once('exit', stopVite);
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
      process.off('exit', stopVite);
      vite.kill();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface FolderServer {
  origin: string;
  /** Paths requested since the last call. */
  takeRequests(): string[];
  close(): Promise<void>;
}

/** Serves `dir` as a static host would, at http://localhost:`port`, recording each path asked for. */
export async function serveFolder(dir: string, port: number): Promise<FolderServer> {
  const { resolveStatic } = await import('../../bridges/static-server.ts');
  const { readFile } = await import('node:fs/promises');
  const { extname } = await import('node:path');
  const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm' };
  let requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    void resolveStatic(dir, path).then(async (file) => {
      if (!file) return void res.writeHead(404).end('not found');
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, 'localhost', resolve));
  return {
    origin: `http://localhost:${port}`,
    takeRequests: () => {
      const r = requests;
      requests = [];
      return r;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
