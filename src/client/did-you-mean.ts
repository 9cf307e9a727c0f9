import type { RcpClient } from './rcp-client.ts';

/** A word the server's `rewrite` changed. */
export interface Correction {
  from: string;
  to: string;
}

/**
 * "Did you mean …?" for a query: the server's spelling-corrected query (§7.8 `query/transform`,
 * method `rewrite`) and the words it changed, or undefined when nothing changed or the server does
 * not advertise `transform` with `rewrite`. Errors other than that (cancel, timeout) reject.
 */
export async function didYouMean(
  client: RcpClient,
  query: string,
  options: { signal?: AbortSignal } = {},
): Promise<{ query: string; corrections: Correction[] } | undefined> {
  if (!client.capabilities?.transform?.methods.includes('rewrite') || query.trim() === '') return undefined;
  const result = await client.request('query/transform', { query, method: 'rewrite' }, options);
  const corrections = readCorrections(result._meta?.corrections);
  const fixed = result.queries[0];
  return fixed !== undefined && fixed !== query && corrections.length > 0 ? { query: fixed, corrections } : undefined;
}

/** The `_meta.corrections` this server sends, checked (any other server's `_meta` is just ignored). */
function readCorrections(v: unknown): Correction[] {
  if (!Array.isArray(v)) return [];
  return v.filter((c): c is Correction => typeof c?.from === 'string' && typeof c?.to === 'string');
}
