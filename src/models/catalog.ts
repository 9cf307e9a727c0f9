/**
 * What this project knows about the models `npm run models` builds, beyond their manifests: the
 * dense similarity floor and the quality measured on the development collections
 * (`npm run eval -- --grid`, docs/models.md), for the playground's model picker and for dense
 * honesty. A folder not listed here (a user's download) runs without a floor and without figures.
 */

export interface CatalogEntry {
  /** Folder under /models/. */
  name: string;
  /** One line for people. */
  label: string;
  /** The languages it was trained for, for people (the model picker's column). */
  languages?: string;
  /**
   * Cosine below which a chunk is no dense match. Chosen on the dev collections: the highest value
   * that leaves dense and hybrid nDCG@10 unchanged, so only hits no relevant document reaches are cut.
   */
  minSimilarity?: number;
  /**
   * Embed writes in the background (Engine `embedInBackground`): the model is too slow for a write
   * to wait for its vectors (a 6-layer encoder embeds ≈ 10 passages/s on WASM on 2 cores).
   */
  backgroundEmbedding?: boolean;
  /**
   * Weights `weighted` fusion uses for this model when the request names none (measured: the best
   * round dense weight on the dev collections). Undefined = the engine's default (dense 0.4).
   */
  fusionWeights?: Readonly<{ dense: number; sparse: number }>;
  /** Trained so that a text and its translation embed close (Embedder.crossLingual). */
  crossLingual?: boolean;
  /**
   * Macro nDCG@10 over cacm, npl and time (docs/models.md), per mode, chunked as the playground
   * indexes; hybrid at this model's default fusion and floor.
   */
  quality?: { sparse: number; dense: number; hybrid: number };
}

export const MODEL_CATALOG: readonly CatalogEntry[] = Object.freeze([
  {
    name: 'minilm-l6-v2',
    label: 'all-MiniLM-L6-v2 sentence encoder (6 layers, mean pooling)',
    languages: 'English',
    // 0.2: nonsense queries get no dense hits; dense nDCG@10 is unchanged, hybrid within ±0.003 of no floor.
    minSimilarity: 0.2,
    backgroundEmbedding: true,
    // q8 (the default dtype); fp32 is within ±0.01 on cacm and time, no better.
    quality: { sparse: 0.5695, dense: 0.5245, hybrid: 0.6261 },
  },
  {
    name: 'multilingual-e5-small',
    label: 'multilingual-e5-small sentence encoder (about 100 languages, 12 layers, query/passage prefixes)',
    // 12 layers: ≈ half MiniLM's passages/s (docs/models.md).
    backgroundEmbedding: true,
    crossLingual: true,
    // English dev sets, capitals folded (docs/multilingual.md); tatoeba default-mode MRR@10 0.926.
    quality: { sparse: 0.5695, dense: 0.4659, hybrid: 0.5878 },
  },
  {
    name: 'minilm-l6-v2-static-256d',
    label: 'Static model distilled from all-MiniLM-L6-v2 (fast lookup table)',
    languages: 'English',
    fusionWeights: { dense: 0.1, sparse: 0.9 },
    quality: { sparse: 0.5695, dense: 0.3885, hybrid: 0.577 },
  },
  {
    name: 'bge-small-en-v1.5',
    label: 'BGE small v1.5 (12 layers, [CLS] pooling, query instruction)',
    languages: 'English',
    backgroundEmbedding: true,
    quality: undefined,
  },
  {
    name: 'glove-static-100d',
    label: 'GloVe static lookup (fast, weak)',
    languages: 'English',
    fusionWeights: { dense: 0.1, sparse: 0.9 },
    quality: { sparse: 0.5695, dense: 0.3432, hybrid: 0.5711 },
  },
]);

/**
 * The default dense model: the one decision (issue 45), read by the models config's default
 * (settings.ts `DEFAULT_MODEL`), named in `initialize`'s model notes and in the playground's picker.
 * Measured on the dev sets (docs/multilingual.md, "The default decision"): multilingual-e5-small
 * as the default would serve every language (tatoeba mean MRR@10 0.926 against 0.084) but ranks
 * English below the target (macro nDCG@10 0.5878 against MiniLM's 0.6261; the target 0.6161) and
 * embeds ≈ 3× slower, so the 30 MB import would pass 20 minutes. MiniLM stays; e5 is one choice away.
 */
export const DEFAULT_DECISION = Object.freeze({
  model: 'minilm-l6-v2',
  why: 'best English ranking on the dev sets (hybrid nDCG@10 0.626) and fast ingest; for documents or queries in other languages choose multilingual-e5-small (tatoeba MRR@10 0.926 against 0.084)',
});

export const catalogEntry = (name: string): CatalogEntry | undefined => MODEL_CATALOG.find((m) => m.name === name);
