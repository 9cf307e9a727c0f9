/**
 * The configured learned-sparse encoder (sparse-encoder.ts) with its identity and vocabulary size
 * known from its folder before any weights load, so `sparseEmbed` is advertised at `initialize`.
 * Its weights (17.7 MB for SPLADE-tiny) load on the first `embed/sparse` only: nothing else uses
 * them, so neither the first sparse nor the first dense answer ever waits for them. A failed load
 * is -32010 (retryable) for that call, and the next call after RETRY_AFTER_MS tries again.
 */
import { LazyLoad } from './lazy-load.ts';
import type { ModelFolder } from './model-folder.ts';
import type { SparseEncoder, SparseWeights } from './sparse-encoder.ts';

export class LazySparseEncoder {
  readonly identity: string;
  private readonly model: LazyLoad<SparseEncoder>;

  constructor(
    readonly folder: ModelFolder,
    /** Vocabulary size: the range of `indices`. */
    readonly vocabulary: number,
    load: () => Promise<SparseEncoder>,
  ) {
    this.identity = folder.identity;
    this.model = new LazyLoad(`sparse encoder ${folder.name}`, load);
  }

  async encode(texts: readonly string[], kind: 'query' | 'document', signal?: AbortSignal): Promise<SparseWeights[]> {
    return (await this.model.get()).encode(texts, kind, signal);
  }

  async dispose(): Promise<void> {
    await (await this.model.settled())?.dispose();
  }
}
