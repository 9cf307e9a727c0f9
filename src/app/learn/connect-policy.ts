/**
 * Whether the page's Content-Security-Policy lets it `fetch` a URL (its `connect-src`), so the
 * checker and the quality harness can say "this build does not allow that address" instead of a
 * bare "Failed to fetch". The policy is read from the page's own meta tag, which the build writes
 * with the same remote-engine allowance as the served header (vite.config.ts).
 */

/** The connect-src sources of a CSP text (default-src when it has none); undefined = no policy. */
export function connectSources(csp: string | undefined): string[] | undefined {
  if (!csp) return undefined;
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...v]) => [name.toLowerCase(), v]));
  return directives.get('connect-src') ?? directives.get('default-src');
}

/** CSP source matching for the forms the build uses: 'self', scheme://host, scheme://host:port, port *. */
export function connectAllowed(url: string, sources: readonly string[] | undefined, pageOrigin: string): boolean {
  if (sources === undefined) return true;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return sources.some((s) => {
    if (s === "'self'") return u.origin === pageOrigin;
    if (s === '*') return true;
    const m = /^(https?):\/\/([^/:]+)(?::(\d+|\*))?\/?$/.exec(s);
    if (!m) return false;
    const [, scheme, host, port] = m;
    const defaultPort = u.protocol === 'https:' ? '443' : '80';
    return u.protocol === `${scheme}:` && u.hostname === host && (port === '*' || (port ?? defaultPort) === (u.port || defaultPort));
  });
}

/** The policy of the current page. */
export function pageConnectSources(): string[] | undefined {
  return connectSources(document.querySelector<HTMLMetaElement>('meta[http-equiv="Content-Security-Policy"]')?.content);
}
