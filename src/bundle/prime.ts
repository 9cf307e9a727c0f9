/**
 * The page's head start on a bundle: while the engine worker's script is still loading, the page
 * fetches the bundle's manifest and then its core file (the two reads every first query waits
 * for), and hands their bytes to the worker with its configuration. The worker checks them exactly
 * as if it had fetched them (bundle-files.ts: the manifest's schema, the core's length and sha256),
 * so a primed file is never trusted more than a fetched one. Anything that fails here is simply
 * not primed: the worker then fetches (or reads from its cache) and reports errors itself. Page side
 * only, and importing nothing the worker imports, so that it adds no chunk to either's first load.
 */
import type { PrimedFile } from '../protocol/control.ts';

/** Same as format.ts's MANIFEST_FILE (kept apart so the page does not carry the bundle format). */
const MANIFEST = 'rcp-bundle.json';

/** Fetches the manifest and the core file of the bundle at `url` (its folder or its manifest). */
export async function primeBundle(url: string): Promise<PrimedFile[]> {
  const base = url.endsWith(`/${MANIFEST}`) ? url.slice(0, -MANIFEST.length) : url.endsWith('/') ? url : `${url}/`;
  const manifestUrl = `${base}${MANIFEST}`;
  try {
    const res = await fetch(manifestUrl, { cache: 'no-cache' });
    if (!res.ok) return [];
    const manifest = await res.arrayBuffer();
    const out: PrimedFile[] = [{ url: manifestUrl, bytes: manifest }];
    const core = (JSON.parse(new TextDecoder().decode(manifest)) as { core?: { path?: unknown } }).core?.path;
    if (typeof core !== 'string') return out;
    // Named by its hash, so a repeat visit finds it in the HTTP cache (and the worker's Cache API
    // copy, when it has one, is read before any primed bytes: http-cache.ts).
    const coreUrl = new URL(core, base).href;
    const coreRes = await fetch(coreUrl);
    if (coreRes.ok) out.push({ url: coreUrl, bytes: await coreRes.arrayBuffer() });
    return out;
  } catch {
    return [];
  }
}
