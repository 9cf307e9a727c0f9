/**
 * Reading a bundle's files over HTTP: the manifest (revalidated), and content files fetched once,
 * checked against the manifest's sha256 and length, decompressed and decoded (codec.ts). A file
 * that fails any step is a BundleError naming its URL; a failed read is tried again by the next
 * request (a flaky network must not poison the file).
 */
import { BundleFormatError, decodeValue } from './codec.ts';
import { BundleError, checkManifest, MANIFEST_FILE, OLD_SHARD_HASH, STATIC_SHARD_HASH, type BundleFile, type BundleManifest } from './format.ts';
import { gunzip } from './gzip.ts';
import { sha256Hex } from './hash.ts';
import type { PrimedFile } from '../protocol/control.ts';

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * `fetchFn` answering the files the page fetched ahead (src/bundle/prime.ts) from their bytes,
 * each once (a later request, e.g. a retry after a failed check, goes to `fetchFn`).
 */
export function primedFetch(fetchFn: FetchLike, primed: readonly PrimedFile[]): FetchLike {
  const ahead = new Map(primed.map((f) => [f.url, f.bytes]));
  return (url, init) => {
    const bytes = ahead.get(url);
    if (bytes === undefined) return fetchFn(url, init);
    ahead.delete(url);
    return Promise.resolve(new Response(bytes, { status: 200 }));
  };
}

/** `base` as a folder URL (the manifest's, when given the manifest's own URL). */
export function bundleBase(url: string): string {
  if (url.endsWith(`/${MANIFEST_FILE}`)) return url.slice(0, -MANIFEST_FILE.length);
  return url.endsWith('/') ? url : `${url}/`;
}

/** Reads and checks the manifest at `base` (a folder URL). Rejects with BundleError naming the URL. */
export async function fetchManifest(base: string, fetchFn: FetchLike = fetch): Promise<BundleManifest> {
  const url = `${bundleBase(base)}${MANIFEST_FILE}`;
  let value: unknown;
  try {
    const res = await fetchFn(url, { cache: 'no-cache' });
    if (!res.ok) throw new BundleError(`${url}: HTTP ${res.status}`, url);
    value = await res.json();
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError(`${url} could not be read: ${(e as Error).message}`, url);
  }
  return checkManifest(value, url);
}

export class BundleFiles {
  private readonly decoded = new Map<string, Promise<unknown>>();
  /** Bytes fetched so far (manifest excluded), as served: for measurements and status displays. */
  bytesRead = 0;

  constructor(
    readonly base: string,
    private readonly fetchFn: FetchLike,
  ) {}

  /** The decoded value of a listed file, fetched once (a failed read is retried by the next call). */
  get<T>(file: BundleFile): Promise<T> {
    let p = this.decoded.get(file.path);
    if (!p) {
      p = this.read(file);
      p.catch(() => this.decoded.delete(file.path));
      this.decoded.set(file.path, p);
    }
    return p as Promise<T>;
  }

  /** Whether a file was read (or is being read). */
  has(file: BundleFile): boolean {
    return this.decoded.has(file.path);
  }

  /** Fetches one listed file and checks its length and hash before decoding it. */
  private async read(file: BundleFile): Promise<unknown> {
    const url = new URL(file.path, this.base).href;
    let bytes: Uint8Array;
    try {
      const res = await this.fetchFn(url);
      if (!res.ok) throw new BundleError(`${url}: HTTP ${res.status}`, url);
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      if (e instanceof BundleError) throw e;
      throw new BundleError(`${url} could not be read: ${(e as Error).message}`, url);
    }
    this.bytesRead += bytes.byteLength;
    // A shard's listing keeps a prefix of its hash (format.ts SHARD_HASH, OLD_SHARD_HASH, STATIC_SHARD_HASH), any other file the whole.
    const sha = await sha256Hex(bytes);
    if (bytes.byteLength !== file.bytes || !(file.sha256.length === sha.length ? sha === file.sha256 : file.sha256.length >= STATIC_SHARD_HASH && file.sha256.length <= OLD_SHARD_HASH && sha.startsWith(file.sha256))) {
      throw new BundleError(`${url} does not match the bundle manifest (${bytes.byteLength} bytes, expected ${file.bytes}): a truncated upload or a file from another build`, url);
    }
    try {
      return decodeValue(file.gzip ? await gunzip(bytes) : bytes);
    } catch (e) {
      if (e instanceof BundleFormatError || e instanceof TypeError) throw new BundleError(`${url}: ${e.message}`, url);
      throw e;
    }
  }
}
