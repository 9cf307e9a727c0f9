/**
 * Copies onnxruntime-web's runtime (the .mjs factory and its .wasm) into public/ort/, so the app
 * serves them from its own origin and never asks a CDN (run by `npm run setup`, scripts/install.sh; the files are not committed).
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ORT_WASM_FILES } from '../src/models/settings.ts';

const root = join(import.meta.dirname, '..');
const require = createRequire(join(root, 'node_modules', '@huggingface', 'transformers', 'package.json'));
const dist = dirname(require.resolve('onnxruntime-web/webgpu'));
const out = join(root, 'public', 'ort');
mkdirSync(out, { recursive: true });
for (const file of ORT_WASM_FILES) {
  const from = join(dist, file);
  const to = join(out, file);
  if (existsSync(to) && statSync(to).size === statSync(from).size) continue;
  copyFileSync(from, to);
  process.stderr.write(`ort: copied ${file}\n`);
}
