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
  /** Macro nDCG@10 over cacm, npl and time (docs/models.md), per mode, at the default fusion. */
  quality?: { sparse: number; dense: number; hybrid: number };
}

export const MODEL_CATALOG: readonly CatalogEntry[] = Object.freeze([
  {
    name: 'all-MiniLM-L6-v2',
    label: 'MiniLM-L6 sentence encoder (6 layers, mean pooling)',
    minSimilarity: 0.2,
    quality: undefined,
  },
  {
    name: 'bge-small-en-v1.5',
    label: 'BGE small v1.5 (12 layers, [CLS] pooling, query instruction)',
    quality: undefined,
  },
  {
    name: 'glove-static-100d',
    label: 'GloVe static lookup (fast, weak)',
    quality: { sparse: 0.575, dense: 0.3407, hybrid: 0.5777 },
  },
]);

export const catalogEntry = (name: string): CatalogEntry | undefined => MODEL_CATALOG.find((m) => m.name === name);
