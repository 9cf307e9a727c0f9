/**
 * The bridges' aggregator flags. The engines are explicit, and the bridge process (Node) reaches
 * them, never the page (bridges/engine-relay.ts), so they need no CORS:
 * - `--federate URL` (repeatable): an RCP engine over HTTP; `--federate-token T` right after it
 *   is that engine's bearer token (else `RCP_FEDERATE_TOKEN`, when set, for every HTTP engine
 *   without one). The bridge's own `--token` is never sent to an engine.
 * - `--federate-stdio "COMMAND ARG…"` (repeatable): an RCP engine over stdio, spawned, initialized,
 *   shut down and restarted after a crash by the bridge.
 * - `--federate-default` federates every retrieve (not only those asking with `_meta.federate: true`);
 *   `--identity NAME` is the aggregator's name in `_meta.federation.path` (§16.2);
 *   `--federate-fusion rrf|convex|score|global-bm25|auto` picks the fusion (default: the Federation's).
 */
import { basename } from 'node:path';
import type { FederatedFusion } from '../src/client/federation/fuse-hits.ts';

export type RemoteEngine =
  | { id: string; transport: 'http'; url: string; token?: string }
  | { id: string; transport: 'stdio'; command: string[] };

export interface FederateArgs {
  engines: RemoteEngine[];
  byDefault: boolean;
  identity?: string;
  fusion?: FederatedFusion;
}

const FUSIONS: readonly string[] = ['auto', 'rrf', 'convex', 'score', 'global-bm25'];

/** Splits a command line on blanks; single or double quotes keep blanks inside one argument. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

const isHttpUrl = (u: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(u).protocol);
  } catch {
    return false;
  }
};

/** A label for a stdio engine: the script it runs (or the program), unique among the engines. */
function stdioId(command: string[], taken: Set<string>): string {
  const script = command.slice(1).find((a) => !a.startsWith('-') && /\.[a-z]+$/i.test(a));
  const stem = basename(script ?? command[0]).replace(/\.[a-z]+$/i, '') || 'engine';
  let id = `stdio:${stem}`;
  for (let n = 2; taken.has(id); n++) id = `stdio:${stem}-${n}`;
  return id;
}

/** One flag as node:util parseArgs reports it in its `tokens` (command-line order). */
export interface FlagToken {
  kind: string;
  name?: string;
  value?: string;
}

/**
 * The aggregator's flags out of a bridge's parsed flags, in command-line order (a `--federate-token`
 * belongs to the `--federate` before it); throws a clear message on a bad value.
 */
export function federateArgs(tokens: readonly FlagToken[], env: Readonly<Record<string, string | undefined>> = process.env): FederateArgs {
  const engines: RemoteEngine[] = [];
  const taken = new Set<string>();
  const envToken = env.RCP_FEDERATE_TOKEN || undefined;
  let last: RemoteEngine | undefined;
  let identity: string | undefined;
  let fusion: FederatedFusion | undefined;
  let byDefault = false;
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const flag = `--${t.name}`;
    const value = (): string => {
      if (!t.value) throw new Error(`${flag} needs a value`);
      return t.value;
    };
    if (flag === '--federate') {
      last = httpEngine(value(), taken);
      engines.push(last);
    } else if (flag === '--federate-token') {
      const token = value();
      if (last?.transport !== 'http') throw new Error('--federate-token must follow the --federate URL it is for');
      last.token = token;
    } else if (flag === '--federate-stdio') {
      const command = splitCommand(value());
      if (!command.length) throw new Error('--federate-stdio needs a command');
      last = { id: stdioId(command, taken), transport: 'stdio', command };
      engines.push(last);
      taken.add(last.id);
    } else if (flag === '--identity') {
      identity = value();
    } else if (flag === '--federate-fusion') {
      const f = value();
      if (!FUSIONS.includes(f)) throw new Error(`--federate-fusion must be one of ${FUSIONS.join(', ')}, got ${JSON.stringify(f)}`);
      fusion = f as FederatedFusion;
    } else if (flag === '--federate-default') byDefault = true;
  }
  for (const e of engines) if (e.transport === 'http' && e.token === undefined && envToken) e.token = envToken;
  return { engines, byDefault, ...(identity ? { identity } : {}), ...(fusion ? { fusion } : {}) };
}

/** An HTTP engine for `--federate URL`, labelled by its host, unique among the engines. */
function httpEngine(url: string, taken: Set<string>): RemoteEngine {
  if (!isHttpUrl(url)) throw new Error(`--federate needs an http(s) URL of an RCP server, got ${JSON.stringify(url)}`);
  let id = new URL(url).host;
  for (let n = 2; taken.has(id); n++) id = `${new URL(url).host}-${n}`;
  taken.add(id);
  return { id, transport: 'http', url };
}

/** What the bridge page is told (bridges/page.ts): relay URLs (bridges/relay-server.ts), the real endpoints for catalog/list, no tokens. */
export function federateQuery(f: FederateArgs, relayUrl: (i: number) => string): string {
  const q = new URLSearchParams();
  const engines = f.engines.map((e, i) => ({
    id: e.id,
    url: relayUrl(i),
    endpoint: e.transport === 'http' ? { transport: 'http', url: e.url } : { transport: 'stdio', command: e.command },
  }));
  q.set('engines', JSON.stringify(engines));
  if (f.byDefault) q.set('federateDefault', '1');
  if (f.identity) q.set('identity', f.identity);
  if (f.fusion) q.set('fusion', f.fusion);
  return q.toString();
}

/** One line for the bridge's stderr: what it federates and how. */
export function describeFederation(f: FederateArgs): string {
  const names = f.engines.map((e) => (e.transport === 'http' ? `${e.url}${e.token ? ' (token)' : ''}` : `${e.id} (${e.command.join(' ')})`));
  return `aggregator: federating ${names.join(', ')} through this process${f.byDefault ? ' (every retrieve)' : ' (retrieves with _meta.federate: true)'}`;
}
