/**
 * What the worker advertises and serves for a bundle: the `x-inpage` reads (browsing, facets,
 * export, map) and none of its writes, plus where the bundle came from. With no `index`
 * capability either (the engine's `readOnly`), every write is refused before it reaches the store:
 * `index/add` and `index/delete` with -32003, `x-inpage/clear` and `x-inpage/import` with -32004.
 */
import type { VendorHandler } from './backend.ts';
import type { BundleManifest } from '../bundle/format.ts';

/** The `x-inpage` capability of a worker serving `bundle`. */
export function bundleInpageCapabilities(bundle: { base: string; manifest: BundleManifest }): { 'x-inpage': Record<string, unknown> } {
  const m = bundle.manifest;
  return {
    'x-inpage': {
      documents: true,
      document: true,
      facets: true,
      export: true,
      map: true,
      bundle: { url: bundle.base, documents: m.documents, chunks: m.chunks, built: m.built, generator: m.generator, ...(m.model ? { model: m.model.identity } : {}), typos: m.typos !== undefined, readOnly: true },
    },
  };
}

/** `handlers` without the named methods. */
export function withoutWrites(handlers: Record<string, VendorHandler>, writes: readonly string[]): Record<string, VendorHandler> {
  return Object.fromEntries(Object.entries(handlers).filter(([name]) => !writes.includes(name)));
}
