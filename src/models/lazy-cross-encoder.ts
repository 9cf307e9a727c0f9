/**
 * The configured cross-encoder as a Reranker whose identity is known before its weights load
 * (from the folder: manifest, or the ONNX hash of a folder without one), so capabilities are fixed
 * at `initialize` (§13.2) while the weights load in the background or on first use. Before, the
 * worker waited for the cross-encoder's load and warm-up inference before it opened the engine,
 * so the first sparse answer waited for a model it does not use (issue 8, seam 4).
 *
 * A failed load rejects `score` with a ModelUnavailableError (the server answers -32010,
 * retryable, keeping the capability as for the embedder); the next call after RETRY_AFTER_MS
 * tries again (lazy-load.ts).
 */
import type { Reranker } from '../engine/contracts.ts';
import type { CrossEncoderReranker } from './cross-encoder.ts';
import { LazyLoad } from './lazy-load.ts';
import type { ModelFolder } from './model-folder.ts';

export class LazyCrossEncoder implements Reranker {
  readonly method = 'cross-encoder' as const;
  readonly identity: string;
  private readonly model: LazyLoad<CrossEncoderReranker>;

  constructor(
    readonly folder: ModelFolder,
    /** Loads the weights (CrossEncoderReranker.load with the runtime's settings and this folder). */
    load: () => Promise<CrossEncoderReranker>,
  ) {
    this.identity = folder.identity;
    this.model = new LazyLoad(`cross-encoder ${folder.name}`, load);
  }

  /** Starts the load if none is under way (or the last one failed long enough ago); resolves with the model. */
  loaded(): Promise<CrossEncoderReranker> {
    return this.model.get();
  }

  async score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    return (await this.loaded()).score(query, passages, signal);
  }

  async dispose(): Promise<void> {
    await (await this.model.settled())?.dispose();
  }
}
