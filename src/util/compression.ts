/**
 * Which Compression Streams formats this runtime has, found by constructing each (an older engine
 * throws TypeError on a format it lacks, or has no streams at all). The engine uses two: gzip (index
 * bundles, src/bundle/gzip.ts) and deflate-raw (.docx import, src/import/docx-text.ts). There is no
 * JS inflater to fall back to: a missing format is said by name, in the log and in the error.
 */

export type CompressionFormatName = 'gzip' | 'deflate-raw';
export type CompressionFormats = Record<CompressionFormatName, boolean>;

type StreamCtor = new (format: string) => unknown;

/** What `g` (the global scope by default) offers. */
export function compressionFormats(g: { CompressionStream?: unknown; DecompressionStream?: unknown } = globalThis): CompressionFormats {
  const works = (format: CompressionFormatName): boolean => {
    const C = g.CompressionStream as StreamCtor | undefined;
    const D = g.DecompressionStream as StreamCtor | undefined;
    if (typeof C !== 'function' || typeof D !== 'function') return false;
    try {
      new C(format);
      new D(format);
      return true;
    } catch {
      return false;
    }
  };
  return { gzip: works('gzip'), 'deflate-raw': works('deflate-raw') };
}

/** One line for logs: the formats found, or what is missing and what that costs. */
export function describeCompression(f: CompressionFormats): string {
  const cost: Record<CompressionFormatName, string> = { gzip: 'index bundles cannot be read or written', 'deflate-raw': '.docx files cannot be imported' };
  const missing = (Object.keys(cost) as CompressionFormatName[]).filter((k) => !f[k]);
  return missing.length === 0 ? 'compression streams: gzip and deflate-raw' : `compression streams: no ${missing.join(' or ')} (${missing.map((m) => cost[m]).join('; ')})`;
}

let here: CompressionFormats | undefined;

/** A decompressing stream for `format`, or an Error naming what this runtime lacks. */
export function decompressor(format: CompressionFormatName): DecompressionStream {
  if (!(here ??= compressionFormats())[format]) throw new Error(`this browser has no DecompressionStream('${format}') (Compression Streams)`);
  return new DecompressionStream(format);
}

/** A compressing stream for `format`, or an Error naming what this runtime lacks. */
export function compressor(format: CompressionFormatName): CompressionStream {
  if (!(here ??= compressionFormats())[format]) throw new Error(`this browser has no CompressionStream('${format}') (Compression Streams)`);
  return new CompressionStream(format);
}
