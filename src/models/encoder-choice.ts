/**
 * Which runtime runs the dense encoder, decided at load: our own WASM kernels
 * (src/models/encoder-runtime/) wherever they cover the model — int8 weights built by
 * `npm run models`, a BERT graph, WebAssembly SIMD that compiles here — and transformers.js for every
 * other model, for fp32, for a forced WebGPU device, and as the fallback (with a log line saying
 * why). Where `auto` would run transformers.js on a real GPU, both are loaded and timed on the same
 * probe batch, and the faster one is kept.
 */
import { configureEnvironment, loadEmbedder, type TransformersEmbedder } from './embedder.ts';
import { errorMessage } from './devices.ts';
import type { KernelEmbedder } from './encoder-runtime/kernel-embedder.ts';
import { kernelCoverage, loadKernelEmbedder } from './encoder-runtime/load.ts';
import type { ModelFolder } from './model-folder.ts';
import { defaultEmbedderSettings, deviceCandidates, type EmbedderSettings } from './settings.ts';
import { describeWebGpu, detectModelSupport } from './support.ts';

/** A loaded dense encoder, on either runtime. */
export type LoadedEncoder = TransformersEmbedder | KernelEmbedder;

export type EncoderLog = (level: 'info' | 'warning', message: string, data?: unknown) => void;

/** Four ≈1,000-character passages: the probe both runtimes are timed on when a GPU competes. */
const PROBE = Array.from({ length: 4 }, (_, i) => `Passage ${i}: ${'the quick brown fox jumps over the lazy dog while the ship sails on a grey sea '.repeat(12)}`);

export async function loadEncoder(overrides: Partial<EmbedderSettings>, folder: ModelFolder, log: EncoderLog, onRestart?: (reason: string) => void): Promise<LoadedEncoder> {
  const support = await detectModelSupport();
  const settings: EmbedderSettings = { ...defaultEmbedderSettings(support), ...overrides };
  const want = settings.runtime ?? 'auto';
  const name = folder.name;
  if (!support.node && settings.device === 'auto') log('info', `model ${name}: ${describeWebGpu(support)}`);
  if (want === 'transformers.js' || settings.device === 'webgpu' || settings.device === 'cpu') return loadEmbedder(settings, folder);
  const why = await kernelCoverage(folder);
  if (why) {
    if (want === 'kernels') throw new Error(`our encoder runtime cannot run ${name}: ${why}`);
    log('info', `model ${name}: our WASM kernels do not run it (${why}); using transformers.js`);
    return loadEmbedder(settings, folder);
  }
  configureEnvironment(settings, support); // the tokenizer loads through transformers.js, from the app's own files
  let ours: KernelEmbedder;
  try {
    ours = await loadKernelEmbedder(folder, { modelBase: settings.modelBase, support, workers: settings.encoderWorkers, onRestart, onFallback: (why) => log('info', `model ${name}: ${why}`) });
  } catch (e) {
    if (want === 'kernels') throw e;
    log('warning', `model ${name}: our WASM kernels failed to load (${errorMessage(e)}); using transformers.js`);
    return loadEmbedder(settings, folder);
  }
  if (want === 'auto' && settings.device === 'auto' && deviceCandidates(settings, support)[0] === 'webgpu') return fasterOf(ours, settings, folder, log);
  return ours;
}

/** Loads transformers.js on the GPU too, times both on the probe (best of two runs each) and keeps the faster. */
async function fasterOf(ours: KernelEmbedder, settings: EmbedderSettings, folder: ModelFolder, log: EncoderLog): Promise<LoadedEncoder> {
  let theirs: TransformersEmbedder;
  try {
    theirs = await loadEmbedder(settings, folder);
  } catch (e) {
    log('info', `model ${folder.name}: transformers.js did not load for comparison (${errorMessage(e)}); keeping our WASM kernels`);
    return ours;
  }
  if (theirs.device !== 'webgpu') {
    await theirs.dispose();
    return ours;
  }
  const rate = async (e: LoadedEncoder) => {
    let best = Infinity;
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      await e.embed(PROBE, 'document');
      best = Math.min(best, performance.now() - t0);
    }
    return PROBE.length / (best / 1000);
  };
  const [a, b] = [await rate(ours), await rate(theirs)];
  const keep = b > a ? theirs : ours;
  log('info', `model ${folder.name}: measured ${a.toFixed(1)} passages/s on ${ours.runtime}, ${b.toFixed(1)} on ${theirs.runtime}; using ${keep.runtime}`, { kernels: a, webgpu: b });
  await (keep === ours ? theirs : ours).dispose();
  return keep;
}
