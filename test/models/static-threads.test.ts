/** Static models run onnxruntime-web on one thread (embedder.ts useOneThreadFor): how they are told apart. */
import { describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { isStaticModel } from '../../src/models/embedder.ts';
import { resolveModelFolder } from '../../src/models/model-folder.ts';
import { modelsBuilt } from '../support/built-models.ts';

const BASE = `${MODELS_DIR}/`;
const BUILT = modelsBuilt('glove-static-100d', [`${BASE}glove-static-100d/manifest.json`, `${BASE}minilm-l6-v2/manifest.json`]);

describe.skipIf(!BUILT)('isStaticModel', () => {
  it('is true for a lookup-table model and false for a transformer', async () => {
    expect(isStaticModel(await resolveModelFolder(BASE, 'glove-static-100d', 'q8', true))).toBe(true);
    expect(isStaticModel(await resolveModelFolder(BASE, 'minilm-l6-v2-static-256d', 'q8', true))).toBe(true);
    expect(isStaticModel(await resolveModelFolder(BASE, 'minilm-l6-v2', 'q8', true))).toBe(false);
  });
});
