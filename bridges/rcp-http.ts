/**
 * `npm run --silent rcp:http -- [--port 8787] [--base /rcp] [--token T] [--allow-origin O]…
 * [--profile DIR] [--model NAME|auto] [--headed] [--verbose] [--federate URL [--federate-token T]]… [--federate-stdio "CMD …"]… [--federate-default] [--federate-fusion F] [--identity NAME]`: the worker's RCP/1 server over HTTP (§5.2).
 *
 * `POST <base>/<method>` with one JSON-RPC object (or `POST <base>` with a batch). Every
 * well-formed JSON-RPC answer, errors included, is HTTP 200 with `Content-Length`; notifications
 * get 204; SSE (`Accept: text/event-stream`) streams progress and log frames, then the response.
 * Sessions: http-sessions.ts. Who may call: http-guard.ts (loopback only, no foreign Host or
 * Origin, JSON only, the bearer token when one is set: `--token T` or RCP_HTTP_TOKEN).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BRIDGE_USAGE, bridgeArgs, diag } from './cli.ts';
import { launchHost } from './browser-host.ts';
import { reportIndexLoss } from './index-loss.ts';
import { idbChoice } from './profile-storage.ts';
import { describeFederation } from './federate-args.ts';
import { EngineRelay } from './engine-relay.ts';
import { modelArg } from './model-arg.ts';
import { ensureBuilt } from './ensure-built.ts';
import { classify, rpcError, unanswerableEntries } from './http-frame.ts';
import { corsHeaders, originAllowed, refuse, type GuardOptions } from './http-guard.ts';
import { HttpSessions } from './http-sessions.ts';

const HTTP_USAGE = `npm run --silent rcp:http -- [--port 8787] [--base /rcp] [--token T] [--allow-origin O]… ${BRIDGE_USAGE}`;
const { values: args, federate, model: modelName } = bridgeArgs(HTTP_USAGE, {
  port: { type: 'string', default: '8787' },
  base: { type: 'string', default: '/rcp' },
  token: { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
});
const port = Number(args.port);
const base = args.base.replace(/\/$/, '');
const maxBody = 64 * 1024 * 1024;
const guard: GuardOptions = {
  allowOrigins: new Set(args['allow-origin'] ?? []),
  token: args.token ?? (process.env.RCP_HTTP_TOKEN || undefined),
};
/** `<base>/session/<name>/<method>`: a stateful session for clients that cannot send `RCP-Session`. */
const SESSION_PATH = /^session\/([A-Za-z0-9._~-]{1,128})(?:\/(.*))?$/;
const SESSION_NAME = /^[A-Za-z0-9._~-]{1,128}$/;

await ensureBuilt(diag);
const model = await modelArg(modelName).catch((e: Error) => {
  diag(e.message);
  process.exit(2);
});
// Engines named on the command line are reached from here, never from the page (engine-relay.ts).
const relay = federate.engines.length ? new EngineRelay(federate.engines, { identity: federate.identity, diag }) : undefined;
const host = await launchHost({
  model,
  profile: args.profile,
  idb: 'profile',
  newProfileIdb: idbChoice(args.idb),
  headed: args.headed === true,
  log: args.verbose === true ? diag : undefined,
  federate,
  relay,
  models: args['no-models'] !== true,
});
reportIndexLoss(host, diag);
if (relay) diag(describeFederation(federate));
const sessions = new HttpSessions((onFrame) => host.openSession(onFrame));

/** A complete response with `Content-Length` (never chunked: clients that read only Content-Length work). */
function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const origin = res.req.headers.origin;
  const cors = originAllowed(origin, guard) ? corsHeaders(origin) : { Vary: 'Origin' };
  if (body === undefined) {
    res.writeHead(status, { ...cors, ...headers }).end();
    return;
  }
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  res.writeHead(status, { ...cors, ...headers, 'Content-Type': 'application/json', 'Content-Length': String(bytes.length) }).end(bytes);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > maxBody) return undefined;
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
  const refusal = refuse(
    {
      method: req.method ?? '',
      host: req.headers.host,
      origin: req.headers.origin,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
    },
    guard,
  );
  if (refusal) {
    res.setHeader('Connection', 'close');
    return reply(res, refusal.status, rpcError(refusal.status === 415 ? -32600 : -32012, refusal.message), refusal.headers);
  }
  if (req.method === 'OPTIONS') return reply(res, 204, undefined);
  const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/$/, '');
  if (path !== base && !path.startsWith(`${base}/`)) return reply(res, 404, rpcError(-32600, 'not an RCP endpoint'));
  if (req.method !== 'POST') return reply(res, 405, rpcError(-32600, 'use POST'), { Allow: 'POST, OPTIONS' });
  const text = await readBody(req);
  if (text === undefined) return reply(res, 413, rpcError(-32013, 'payload too large'));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return reply(res, 400, rpcError(-32700, 'parse error: invalid JSON'));
  }
  let rest: string;
  try {
    rest = decodeURIComponent(path.slice(base.length + 1));
  } catch {
    return reply(res, 400, rpcError(-32600, 'invalid request: malformed method in the path'));
  }
  const inPath = SESSION_PATH.exec(rest);
  const header = req.headers['rcp-session'];
  const name = inPath?.[1] ?? (typeof header === 'string' ? header.trim() : undefined);
  if (name !== undefined && !SESSION_NAME.test(name)) return reply(res, 400, rpcError(-32600, 'invalid request: RCP-Session must be 1-128 of A-Z a-z 0-9 . _ ~ -'));
  const msg = classify(body, inPath ? (inPath[2] ?? '') : rest);
  if (msg.kind === 'reject') return reply(res, msg.status, msg.body);
  if (msg.kind === 'batch' && msg.requests.length === 0) {
    // No member has an id: the bridge owes -32600 for each malformed member and forwards the notifications.
    if (msg.notifications > 0) await sessions.notify(name, text);
    return msg.unanswerable > 0 ? reply(res, 200, unanswerableEntries(msg.unanswerable)) : reply(res, 204, undefined);
  }
  const wantsSse = String(req.headers.accept ?? '').includes('text/event-stream');
  const outcome = await sessions.serve(name, { text, msg, onEvent: wantsSse ? (frame) => sse(res, frame) : undefined });
  if (outcome.kind === 'none') return reply(res, 204, undefined);
  if (outcome.kind === 'invalid') return res.headersSent ? void res.end(`data: ${JSON.stringify(outcome.body)}\n\n`) : reply(res, outcome.status, outcome.body);
  if (res.headersSent) return void res.end(`data: ${outcome.frame}\n\n`);
  reply(res, 200, outcome.frame);
}

/** Switches a response to SSE on its first event (§5.2); each frame is one `data:` line. */
function sse(res: ServerResponse, frame: string): void {
  if (!res.headersSent) res.writeHead(200, { ...corsHeaders(res.req.headers.origin), 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.write(`data: ${frame}\n\n`);
}

server.listen(port, '127.0.0.1', () => {
  diag(`RCP over HTTP at http://127.0.0.1:${port}${base} (loopback only${guard.token ? ', bearer token required' : ''}${guard.allowOrigins.size ? `, browser origins: ${[...guard.allowOrigins].join(' ')}` : ', no browser origin allowed'})`);
});
server.on('error', (e) => {
  diag(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
  void Promise.all([relay?.close(), host.close()]).then(() => process.exit(1));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    server.close();
    sessions.closeAll();
    await relay?.close();
    await host.close();
    process.exit(0);
  });
}
