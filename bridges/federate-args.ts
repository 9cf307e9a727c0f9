/**
 * The bridges' aggregator flags: `--federate URL` (repeatable) names a remote RCP engine over HTTP
 * that the worker fans federated retrieves out to (src/server/aggregator.ts); `--federate-default`
 * federates every retrieve (not only those asking with `_meta.federate: true`); `--identity NAME`
 * is the aggregator's name in `_meta.federation.path` (§16.2). The engines are explicit: nothing
 * else outside the page's origin is ever reached.
 */
export interface FederateArgs {
  urls: string[];
  byDefault: boolean;
  identity?: string;
}

export function federateArgs(argv: readonly string[]): FederateArgs {
  const urls = argv.flatMap((a, i) => (a === '--federate' ? [argv[i + 1]] : a.startsWith('--federate=') ? [a.slice('--federate='.length)] : []));
  for (const u of urls) {
    const ok = (() => {
      try {
        return ['http:', 'https:'].includes(new URL(u).protocol);
      } catch {
        return false;
      }
    })();
    if (!ok) throw new Error(`--federate needs an http(s) URL of an RCP server, got ${JSON.stringify(u)}`);
  }
  const at = argv.indexOf('--identity');
  return { urls, byDefault: argv.includes('--federate-default'), ...(at >= 0 && argv[at + 1] ? { identity: argv[at + 1] } : {}) };
}

/** The bridge page's query string carrying them (read by bridges/page.ts). */
export function federateQuery(f: FederateArgs): string {
  const q = new URLSearchParams();
  for (const u of f.urls) q.append('federate', u);
  if (f.byDefault) q.set('federateDefault', '1');
  if (f.identity) q.set('identity', f.identity);
  return q.toString();
}
