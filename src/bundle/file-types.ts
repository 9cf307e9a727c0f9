/**
 * The manifest's file entries, apart from format.ts so that static-format.ts and typo-format.ts (which format.ts
 * imports) can name them without importing format.ts back.
 */

/** One file of the bundle, as the manifest lists it. */
export interface BundleFile {
  /** Path relative to the manifest. */
  path: string;
  /** sha256 of the file's bytes as served (hex): a reader refuses a file that does not match. */
  sha256: string;
  bytes: number;
  /** The bytes are gzip-compressed (by the writer: the reader decompresses them itself). */
  gzip?: true;
}

/**
 * Shard files of one kind (`<dir>/<i>-<hash>.bin`, gzip), listed compactly: a 10,000-page site has
 * a thousand of them and the manifest is read before every first answer. Each is checked against
 * the first SHARD_HASH hex digits of its sha256 (its name's hash) and its length: enough to refuse
 * a truncated upload or a file of another build, which is what the check is for.
 */
export interface BundleShards {
  /** Each file's hash, SHARD_HASH hex digits each, concatenated in file order. */
  hashes: string;
  /** Each file's length in bytes. */
  bytes: number[];
}

/** The manifest's `typos` entry (typo-format.ts): the listing of the typo shards. */
export interface BundleTypos {
  core: BundleFile;
}
