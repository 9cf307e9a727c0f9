import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { BrowserContext } from 'playwright-core';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The file under `root` that `pathname` names (a directory names its index.html); undefined outside root. */
export async function resolveStatic(root: string, pathname: string): Promise<string | undefined> {
  const base = resolve(root);
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  let file = normalize(join(base, path));
  if (file !== base && !file.startsWith(base + sep)) return undefined;
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves the built app to `context` at `origin` through request interception: no port is opened,
 * so the origin (and with it the IndexedDB index, which belongs to the origin) never depends on a
 * free port. Every request outside the origin is aborted (the app makes no network request), but
 * those `passThrough` lets go: the bridges' loopback relay to federated engines (relay-server.ts).
 */
export async function routeApp(context: BrowserContext, origin: string, root: string, opts: { isolated?: boolean; passThrough?: (url: URL) => boolean } = {}): Promise<void> {
  // COOP + COEP make the page cross-origin isolated, which enables WASM threads (see HostOptions.isolated).
  const isolation: Record<string, string> = opts.isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const prefix = `${origin}/`;
  const passes = opts.passThrough ?? (() => false);
  await context.route(
    (url) => !url.href.startsWith(prefix) && !passes(url),
    (route) => route.abort('blockedbyclient'),
  );
  await context.route(
    (url) => url.href.startsWith(prefix),
    async (route) => {
      const file = await resolveStatic(root, new URL(route.request().url()).pathname);
      if (!file) return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
      const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache', ...isolation };
      // A HEAD (the model picker's download sizes) gets the length, not the body: tens of MB each otherwise.
      if (route.request().method() === 'HEAD') return route.fulfill({ status: 200, headers: { ...headers, 'Content-Length': String((await stat(file)).size) } });
      await route.fulfill({ status: 200, body: await readFile(file), headers });
    },
  );
}

/**
 * `root` over plain HTTP on localhost (as a static host serves it: no compression, `no-cache`), for
 * measurements that must not pay request interception's round trip through this process per file.
 */
export async function serveStatic(root: string, port: number): Promise<Server> {
  const server = createServer(async (req, res) => {
    const file = await resolveStatic(root, new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!file) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' };
    if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'Content-Length': String((await stat(file)).size) }).end();
    res.writeHead(200, headers).end(await readFile(file));
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(port, 'localhost', ok));
  return server;
}
