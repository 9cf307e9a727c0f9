/**
 * The manifest.json written next to each built model (scripts/build-models.ts), and the
 * §15.7 identity derived from it.
 */

import type { ManifestRecipeFields } from './recipe.ts';

/** The fields of manifest.json the runtime relies on (the recipe fields: see recipe.ts). */
export interface ModelManifest extends ManifestRecipeFields {
  name: string;
  dimension: number;
  vocabularySize: number;
  normalized: boolean;
  license: string;
  description: string;
  /** What the folder holds, for people (a static model's says "static embedding"). */
  format?: string;
  /** Path within the model folder → sha256 (hex). */
  files: Record<string, string>;
}

/**
 * `<model name>@sha256:<first 12 hex of the sha256 of the ONNX file in use>`. Different weights
 * (another build, or fp32 vs q8) give a different identity, so stored vectors are known stale.
 * A recipe that changes what the model reads (foldCapitals) is part of the embedding space too,
 * so it is named: `+foldcaps`.
 */
export function modelIdentity(manifest: ModelManifest, onnxFile: string): string {
  const sum = manifest.files[onnxFile];
  if (!sum || !/^[0-9a-f]{64}$/.test(sum)) throw new Error(`manifest of ${manifest.name} has no checksum for ${onnxFile}`);
  return `${manifest.name}@sha256:${sum.slice(0, 12)}${manifest.foldCapitals === true ? '+foldcaps' : ''}`;
}

/**
 * Reads `<base><model>/manifest.json`: `fetch` in the browser (revalidated, so a rebuilt model
 * is noticed), the filesystem in Node.
 */
export async function readManifest(base: string, model: string, node: boolean): Promise<ModelManifest> {
  const path = `${base}${model}/manifest.json`;
  let text: string;
  if (node) {
    const fsName = 'node:fs/promises'; // a variable keeps bundlers from resolving it for the browser
    const fs = (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises');
    text = await fs.readFile(path, 'utf8');
  } else {
    const res = await fetch(path, { cache: 'no-cache' });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    text = await res.text();
  }
  const manifest = JSON.parse(text) as ModelManifest;
  if (manifest.name !== model || !(manifest.dimension > 0) || typeof manifest.files !== 'object') {
    throw new Error(`${path}: not a model manifest for '${model}'`);
  }
  return manifest;
}
