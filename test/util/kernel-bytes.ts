/**
 * Every WebAssembly module the kernels emit, by name, for the byte fixture (kernel-bytes.test.ts):
 * the knn kernels for each row width, the scan kernels for each sign-bit stride, the encoder
 * module of each GEMM variant for the shapes the models use and one small one.
 */
import { gatherModuleBytes, shortlistModuleBytes, tileModuleBytes } from '../../src/engine/graph/knn-kernels.ts';
import { kernelModuleBytes } from '../../src/engine/index/vectors/wasm-kernels.ts';
import { encoderModuleBytes } from '../../src/models/encoder-runtime/kernel-module.ts';
import type { EncoderShape } from '../../src/models/encoder-runtime/weights-file.ts';

const SHAPES: [string, EncoderShape][] = [
  ['minilm', { layers: 6, hidden: 384, heads: 12, intermediate: 1536, maxPositions: 512, typeVocab: 2, vocab: 30522, layerNormEps: 1e-12 }],
  ['base', { layers: 12, hidden: 768, heads: 12, intermediate: 3072, maxPositions: 512, typeVocab: 2, vocab: 30522, layerNormEps: 1e-12 }],
  ['small', { layers: 1, hidden: 32, heads: 2, intermediate: 64, maxPositions: 8, typeVocab: 1, vocab: 10, layerNormEps: 1e-12 }],
];

export function kernelModules(): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (let words = 1; words <= 62; words++) out.set(`knn/tile/${words}`, tileModuleBytes(words));
  out.set('knn/shortlist', shortlistModuleBytes());
  out.set('knn/gather', gatherModuleBytes());
  for (let s = 16; s <= 496; s += 16) out.set(`vectors/${s}`, kernelModuleBytes(s));
  for (const [name, shape] of SHAPES) for (const dot of ['relaxed', 'relaxed16', 'simd'] as const) out.set(`encoder/${name}/${dot}`, encoderModuleBytes(shape, dot));
  return out;
}
