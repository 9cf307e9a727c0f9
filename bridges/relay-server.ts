/**
 * Where the worker's aggregator reaches the bridges' relay (engine-relay.ts): a loopback HTTP
 * server, one host name per engine (`relay-N.localhost:PORT`, which Chromium resolves to
 * 127.0.0.1 by itself: six connections per host, so an engine that never answers cannot queue
 * the others' requests). A real server rather than request interception, because interception
 * fulfils whole bodies only: a relayed `retrieve` that carries a progressToken is answered as
 * SSE, each engine progress frame written as it comes (§9, §5.2).
 *
 * Private by construction: it listens on 127.0.0.1 only, serves only a path with a secret made
 * for this run (told to the bridge page alone), answers only the app's origin (CORS), and only
 * the relay host names (a rebinding DNS name is refused by its Host header).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the relay does with one exchange; `emit`, when given, takes the frames sent before the answer. */
export interface RelayExchange {
  handle(engine: string, body: string, emit?: (frame: string) => void): Promise<{ status: number; body?: string }>;
}

export interface RelayServer {
  /** The base URL engine number `i` is reached at (the worker's HttpTransport appends `/<method>`). */
  urlOf(i: number): string;
  /** Whether `url` is on this server's relay hosts (the browser must let it through). */
  carries(url: URL): boolean;
  close(): Promise<void>;
}

/** Largest request body taken (a retrieve is a few KB; an index/add is never relayed in bulk). */
const MAX_BODY = 4 * 2 ** 20;

export async function serveRelay(relay: RelayExchange, o: { appOrigin: string; engines: readonly string[] }): Promise<RelayServer> {
  const secret = randomBytes(16).toString('hex');
  let port = 0;
  const cors = { 'Access-Control-Allow-Origin': o.appOrigin, 'Access-Control-Allow-Headers': 'content-type, accept, rcp-session', 'Access-Control-Allow-Methods': 'POST', Vary: 'Origin', 'Cache-Control': 'no-store' };
  /** The engine a `Host` (`relay-N.localhost:PORT`) stands for, if any. */
  const engineAt = (host: string): string | undefined => {
    const m = /^relay-(\d+)\.localhost:(\d+)$/.exec(host);
    return m && Number(m[2]) === port ? o.engines[Number(m[1])] : undefined;
  };
  const refuse = (res: ServerResponse, status: number, message: string) => res.writeHead(status, { 'Content-Type': 'text/plain' }).end(message);

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const engine = engineAt(req.headers.host ?? '');
    if (engine === undefined) return refuse(res, 421, 'not a relay host');
    if (req.headers.origin !== o.appOrigin) return refuse(res, 403, 'origin not allowed');
    const path = new URL(req.url ?? '/', 'http://relay').pathname;
    if (path !== `/${secret}/rcp` && !path.startsWith(`/${secret}/rcp/`)) return refuse(res, 404, 'not found');
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (req.method !== 'POST') return void res.writeHead(405, { ...cors, 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"use POST"}}');
    const body = await readBody(req).catch(() => undefined);
    if (body === undefined) return refuse(res, 413, 'request body too large');
    // SSE only when the page asked for it and the request can have progress to stream.
    const streams = String(req.headers.accept ?? '').includes('text/event-stream') && body.includes('"progressToken"');
    const emit = streams
      ? (frame: string) => {
          if (!res.headersSent) res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream' });
          res.write(`data: ${frame}\n\n`);
        }
      : undefined;
    const answer = await relay.handle(engine, body, emit);
    if (res.destroyed) return; // the page gave up on it (its deadline passed, it cancelled)
    if (res.headersSent) return void res.end(answer.body !== undefined ? `data: ${answer.body}\n\n` : '');
    res.writeHead(answer.status, { ...cors, ...(answer.body !== undefined ? { 'Content-Type': 'application/json' } : {}) }).end(answer.body);
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
  return {
    urlOf: (i) => `http://relay-${i}.localhost:${port}/${secret}/rcp`,
    carries: (url) => url.protocol === 'http:' && engineAt(url.host) !== undefined,
    close: () => new Promise<void>((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        fail(new Error('too large'));
        req.destroy();
      } else parts.push(b);
    });
    req.on('end', () => ok(Buffer.concat(parts).toString('utf8')));
    req.on('error', fail);
  });
}
