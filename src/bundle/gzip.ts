/**
 * gzip through the platform's Compression Streams (browsers, workers and Node alike): a bundle's
 * files are compressed by the writer, so what travels is small on any static host, compressing or
 * not (files are named `.bin`, so no host marks them `Content-Encoding: gzip` and unpacks them).
 * A runtime without gzip streams gets an error that says so (src/util/compression.ts).
 */
import { compressor, decompressor } from '../util/compression.ts';

async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

export const gzip = async (bytes: Uint8Array): Promise<Uint8Array> => through(bytes, compressor('gzip'));

/** Rejects (TypeError) on bytes that are not gzip or are cut short. */
export const gunzip = async (bytes: Uint8Array): Promise<Uint8Array> => through(bytes, decompressor('gzip'));
