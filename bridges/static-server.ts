import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { BrowserContext, Route } from 'playwright-core';

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
 * The relay to federated engines (bridges/engine-relay.ts): `origin(o)` says which engine a
 * request origin stands for (bridges/federate-args.ts relayOrigin), `handle` answers the page's POST to it.
 */
export interface RelayHandler {
  engineAt(origin: string): string | undefined;
  handle(engine: string, body: string): Promise<{ status: number; body?: string }>;
}

/**
 * Serves the built app to `context` at `origin` through request interception: no port is opened,
 * so the origin (and with it the IndexedDB index, which belongs to the origin) never depends on a
 * free port. Every request outside the origin is aborted (the app makes no network request). The
 * federated engines (the bridges' --federate flags) are reached under the origin itself, through
 * `relay`, which carries the requests from Node: the page needs no CORS and reaches no other host.
 */
export async function routeApp(context: BrowserContext, origin: string, root: string, opts: { isolated?: boolean; relay?: RelayHandler } = {}): Promise<void> {
  // COOP + COEP make the page cross-origin isolated, which enables WASM threads (see HostOptions.isolated).
  const isolation: Record<string, string> = opts.isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const prefix = `${origin}/`;
  const relay = opts.relay;
  const relayed = (url: URL): string | undefined => relay?.engineAt(url.origin);
  await context.route(
    (url) => !url.href.startsWith(prefix) && relayed(url) === undefined,
    (route) => route.abort('blockedbyclient'),
  );
  if (relay) await context.route((url) => relayed(url) !== undefined, (route) => relayRoute(route, origin, relay));
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

/** One relayed exchange: a POST to an engine's relay origin, answered from Node for the app's origin only. */
async function relayRoute(route: Route, appOrigin: string, relay: RelayHandler): Promise<void> {
  const req = route.request();
  const cors = { 'Access-Control-Allow-Origin': appOrigin, 'Access-Control-Allow-Headers': 'content-type, accept, rcp-session', 'Access-Control-Allow-Methods': 'POST', Vary: 'Origin', 'Cache-Control': 'no-store' };
  if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors }).catch(() => undefined);
  const engine = relay.engineAt(new URL(req.url()).origin)!;
  const answer = req.method() === 'POST' ? await relay.handle(engine, req.postData() ?? '') : { status: 405, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"use POST"}}' };
  // The page may have given up on it (its deadline passed, it cancelled): nothing left to answer.
  await route.fulfill({ status: answer.status, ...(answer.body !== undefined ? { body: answer.body, contentType: 'application/json' } : {}), headers: cors }).catch(() => undefined);
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
