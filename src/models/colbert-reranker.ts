import type { Reranker } from '../engine/contracts.ts';
import { maxSim, type TokenMatrix } from './token-vectors.ts';

/** The part of an encoder late interaction needs: per-token unit vectors. */
export interface TokenEncoder {
  readonly identity: string;
  tokenVectors(texts: string[], signal?: AbortSignal): Promise<TokenMatrix[]>;
}

/**
 * ColBERT-style reranking (§7.6 method `colbert`): MaxSim of the query's token vectors against
 * each passage's, from the same model that serves `embed/multi`. Scores are sums of cosines:
 * higher is better, no fixed range.
 */
export class ColbertReranker implements Reranker {
  readonly method = 'colbert' as const;
  readonly identity: string;
  private readonly encoder: () => Promise<TokenEncoder>;

  constructor(identity: string, encoder: () => Promise<TokenEncoder>) {
    this.identity = `colbert-maxsim/${identity}`;
    this.encoder = encoder;
  }

  async score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]> {
    const model = await this.encoder();
    const [q] = await model.tokenVectors([query], signal);
    const docs = await model.tokenVectors(passages, signal);
    return docs.map((d) => maxSim(q, d));
  }
}
