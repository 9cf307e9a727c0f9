/** The service worker precaches the configured model (its dtype's ONNX, and our runtime's int8 weights for q8) and its sample vectors (tools/vite/sw.ts). */
import { describe, expect, it } from 'vitest';
import { precachedPublicFiles } from '../../tools/vite/sw.ts';

const FILES = [
  '/models/README.md',
  '/models/config.json',
  '/models/minilm-l6-v2/manifest.json',
  '/models/minilm-l6-v2/tokenizer.json',
  '/models/minilm-l6-v2/onnx/model.onnx',
  '/models/minilm-l6-v2/onnx/model_quantized.onnx',
  '/models/minilm-l6-v2/encoder/model.bin',
  '/models/minilm-l6-v2/encoder/model_quantized.bin',
  '/models/other/encoder/model_quantized.bin',
  '/models/glove-static-100d/manifest.json',
  '/models/glove-static-100d/onnx/model_quantized.onnx',
  '/ort/ort-wasm-simd-threaded.asyncify.wasm',
  '/sample/corpus.json',
  '/sample/vectors-minilm-l6-v2.bin',
  '/sample/vectors-other.bin',
  '/sample/vectors-minilm-l6-v2.bin.tmp',
];

describe('service worker precache', () => {
  it('the configured model with the ONNX file of its dtype, its sample vectors, and the small files of the others', () => {
    expect(precachedPublicFiles(FILES, { embedder: 'minilm-l6-v2', dtype: 'q8' })).toEqual([
      '/models/config.json',
      '/models/glove-static-100d/manifest.json',
      '/models/minilm-l6-v2/encoder/model_quantized.bin',
      '/models/minilm-l6-v2/manifest.json',
      '/models/minilm-l6-v2/onnx/model_quantized.onnx',
      '/models/minilm-l6-v2/tokenizer.json',
      '/ort/ort-wasm-simd-threaded.asyncify.wasm',
      '/sample/corpus.json',
      '/sample/vectors-minilm-l6-v2.bin',
    ]);
    expect(precachedPublicFiles(FILES, { embedder: 'minilm-l6-v2', dtype: 'fp32' })).toContain('/models/minilm-l6-v2/onnx/model.onnx');
    expect(precachedPublicFiles(FILES, { embedder: 'minilm-l6-v2', dtype: 'fp32' })).not.toContain('/models/minilm-l6-v2/onnx/model_quantized.onnx');
    // Our encoder runtime runs int8 weights only: no weight file for fp32.
    expect(precachedPublicFiles(FILES, { embedder: 'minilm-l6-v2', dtype: 'fp32' }).filter((f) => f.endsWith('.bin') && f.startsWith('/models/'))).toEqual([]);
  });

  it('falls back to the other ONNX file when the dtype\'s is missing, as the runtime does', () => {
    const out = precachedPublicFiles(FILES, { embedder: 'glove-static-100d', dtype: 'fp32' });
    expect(out).toContain('/models/glove-static-100d/onnx/model_quantized.onnx');
    expect(out.filter((f) => f.startsWith('/sample/vectors'))).toEqual([]);
  });
});
