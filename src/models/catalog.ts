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
  /** Macro nDCG@10 over cacm, npl and time (docs/models.md), per mode, at the default fusion. */
  quality?: { sparse: number; dense: number; hybrid: number };
}

export const MODEL_CATALOG: readonly CatalogEntry[] = Object.freeze([
  {
    name: 'minilm-l6-v2',
    label: 'all-MiniLM-L6-v2 sentence encoder (6 layers, mean pooling)',
    minSimilarity: 0.2,
    backgroundEmbedding: true,
    quality: undefined,
  },
  {
    name: 'bge-small-en-v1.5',
    label: 'BGE small v1.5 (12 layers, [CLS] pooling, query instruction)',
    backgroundEmbedding: true,
    quality: undefined,
  },
  {
    name: 'glove-static-100d',
    label: 'GloVe static lookup (fast, weak)',
    quality: { sparse: 0.575, dense: 0.3407, hybrid: 0.5777 },
  },
]);

export const catalogEntry = (name: string): CatalogEntry | undefined => MODEL_CATALOG.find((m) => m.name === name);
