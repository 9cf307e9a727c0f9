/**
 * `npm run --silent rcp:http -- --port N [--base /rcp] [--profile DIR] [--headed]`: the worker's
 * RCP/1 server over HTTP (§5.2). `POST <base>/<method>` with one JSON-RPC object (or `POST <base>`
 * with a batch). Every well-formed JSON-RPC answer, errors included, is HTTP 200; notifications get
 * 204; SSE (`Accept: text/event-stream`) streams progress frames then the response when
 * `streaming` is advertised. Requests share one stateful session unless they carry an
 * `RCP-Session` header, which selects (and on first use opens) a session of their own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { diag, parseArgs } from '../scripts/lib/args.ts';
import { launchHost, type BrowserSession } from './browser-host.ts';
import { ensureBuilt } from './ensure-built.ts';
import { HttpSessionRouter } from './http-router.ts';

const { flags, values } = parseArgs(process.argv.slice(2));
const port = Number(values.get('port') ?? 8787);
const base = (values.get('base') ?? '/rcp').replace(/\/$/, '');
const maxBody = 64 * 1024 * 1024;

await ensureBuilt(diag);
const host = await launchHost({ profile: values.get('profile'), headed: flags.has('headed'), log: flags.has('verbose') ? diag : undefined });
/** One session per `RCP-Session` key; the map holds promises so two first requests share one. */
const sessions = new Map<string, Promise<HttpSessionRouter>>();

function sessionFor(key: string): Promise<HttpSessionRouter> {
  const existing = sessions.get(key);
  if (existing) return existing;
  const opening = (async () => {
    let open: BrowserSession | undefined;
    const router = new HttpSessionRouter(
      (frame) => open!.send(frame),
      () => {
        // After `shutdown` the session is gone: forget it and release its port.
        sessions.delete(key);
        void open?.close();
      },
    );
    open = await host.openSession((frame) => router.deliver(frame));
    return router;
  })();
  sessions.set(key, opening);
  opening.catch(() => sessions.delete(key));
  return opening;
}

const cors = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Accept, RCP-Session',
};

function reply(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, { ...cors, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) });
  res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
}

const rpcError = (code: number, message: string, id: unknown = null) => ({ jsonrpc: '2.0', id, error: { code, message } });

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBody) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer((req, res) => {
  handle(req, res).catch((e: unknown) => {
    // Never let one bad exchange take the bridge (and every session) down.
    diag(`request failed: ${e instanceof Error ? e.message : String(e)}`);
    if (!res.headersSent) reply(res, 500, rpcError(-32603, 'internal error in the HTTP bridge'));
    else res.end();
  });
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/$/, '');
  if (req.method === 'OPTIONS') return reply(res, 204);
  if (path !== base && !path.startsWith(`${base}/`)) return reply(res, 404, rpcError(-32600, 'not an RCP endpoint'));
  if (req.method !== 'POST') return reply(res, 405, rpcError(-32600, 'use POST'));
  const text = await readBody(req);
  if (text === undefined) return reply(res, 413, rpcError(-32013, 'payload too large'));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return reply(res, 400, rpcError(-32700, 'parse error: invalid JSON'));
  }
  let urlMethod: string;
  try {
    urlMethod = decodeURIComponent(path.slice(base.length + 1));
  } catch {
    return reply(res, 400, rpcError(-32600, 'invalid request: malformed method in the path'));
  }
  const router = await sessionFor(String(req.headers['rcp-session'] ?? ''));
  const wantsSse = String(req.headers.accept ?? '').includes('text/event-stream');
  const outcome = await router.exchange(text, body, urlMethod, wantsSse ? (frame) => startSse(res, frame) : undefined);
  if (outcome.kind === 'none') return reply(res, 204);
  if (outcome.kind === 'invalid') return reply(res, outcome.status, outcome.body);
  if (res.headersSent) {
    res.end(`data: ${outcome.frame}\n\n`);
    return;
  }
  reply(res, 200, outcome.frame);
}

/** Switches a response to SSE on its first progress frame (§5.2). */
function startSse(res: ServerResponse, frame: string): void {
  if (!res.headersSent) res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.write(`data: ${frame}\n\n`);
}

server.listen(port, '127.0.0.1', () => diag(`RCP over HTTP at http://127.0.0.1:${port}${base}`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    server.close();
    await host.close();
    process.exit(0);
  });
}
