/**
 * Bundled by scripts/browsers/feature-paths.ts (an IIFE, global `featureProbe`) and run on the
 * app's blank page and in a dedicated worker started from the same code: the engine's own
 * detectors, called as the engine calls them, so the table says what each browser's detection
 * answers rather than what its name suggests. The engine itself is read separately (its log lines).
 */
import { hasWordSegmenter } from '../../src/engine/analysis/analyzer.ts';
import { storageKind } from '../../src/app/storage-notice.ts';
import { encoderKernels, encoderModuleBytes } from '../../src/models/encoder-runtime/kernel-module.ts';
import type { EncoderShape } from '../../src/models/encoder-runtime/weights-file.ts';
import { defaultEncoderWorkers, describeWebGpu, detectModelSupport } from '../../src/models/support.ts';
import { logSupport } from '../../src/storage/recovery/log-files.ts';
import { compressionFormats } from '../../src/util/compression.ts';

/** minilm-l6-v2's sizes: the kernels are generated, compiled, self-tested and timed for them. */
const MINILM: EncoderShape = { layers: 6, hidden: 384, heads: 12, intermediate: 1536, maxPositions: 512, typeVocab: 2, vocab: 30522, layerNormEps: 1e-12 };

const errorName = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, 160);

/** What the page (the playground's own thread) detects. */
export async function pagePaths(): Promise<Record<string, string>> {
  return {
    storage: await storageKind((navigator as { storage?: StorageManager }).storage),
    pageIsolated: String(globalThis.crossOriginIsolated === true),
  };
}

/** Opens, writes and removes a file through a sync access handle: whether OPFS sync access works here, not only exists. */
async function trySyncAccess(): Promise<string> {
  try {
    const dir = await navigator.storage.getDirectory();
    const file = await dir.getFileHandle('rcp-feature-probe', { create: true });
    const handle = await (file as unknown as { createSyncAccessHandle(): Promise<{ write(b: Uint8Array, o: { at: number }): number; flush(): void; close(): void }> }).createSyncAccessHandle();
    handle.write(new Uint8Array([1, 2, 3]), { at: 0 });
    handle.flush();
    handle.close();
    await dir.removeEntry('rcp-feature-probe');
    return 'works';
  } catch (e) {
    return `refused (${errorName(e)})`;
  }
}

/** What a dedicated worker (where the engine and its models run) detects. */
export async function workerPaths(): Promise<Record<string, string>> {
  const support = await detectModelSupport();
  const kernels = await encoderKernels(MINILM).catch((e: unknown) => errorName(e));
  const passed = typeof kernels === 'object' && kernels ? Object.keys(kernels.timings ?? {}) : [];
  // The compiler's own answer on relaxed SIMD (the engine only sees a variant drop out).
  const relaxed = await WebAssembly.compile(encoderModuleBytes(MINILM, 'relaxed')).then(
    () => 'compiles',
    (e: unknown) => `refused (${errorName(e)})`,
  );
  const log = logSupport();
  const formats = compressionFormats();
  return {
    kernels: typeof kernels === 'string' ? `failed (${kernels})` : kernels ? `${kernels.dot} (passed: ${passed.join(', ')})` : 'none (no WebAssembly SIMD)',
    relaxedSimd: relaxed,
    workerIsolated: String(globalThis.crossOriginIsolated === true),
    cores: String(navigator.hardwareConcurrency ?? '?'),
    encoderWorkers: String(defaultEncoderWorkers(support)),
    webgpu: describeWebGpu(support),
    opfsSync: log.kind === 'opfs-sync' ? `present; ${await trySyncAccess()}` : `absent (${log.why})`,
    compression: Object.entries(formats)
      .map(([f, ok]) => `${f} ${ok ? 'yes' : 'no'}`)
      .join(', '),
    segmenter: hasWordSegmenter() ? 'Intl.Segmenter' : 'none',
  };
}
