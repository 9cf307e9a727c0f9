/**
 * The runtime choices made by feature detection (issue 44; docs/browsers.md "Which path each
 * browser takes"): each detector answers from what the runtime offers, never from its name, and
 * each log line says the path taken.
 */
import { describe, expect, it } from 'vitest';
import { describeWordSegmenter, hasWordSegmenter } from '../../src/engine/analysis/analyzer.ts';
import { defaultEncoderWorkers, describeWebGpu, wasmThreads } from '../../src/models/support.ts';
import { compressionFormats, describeCompression } from '../../src/util/compression.ts';

describe('Compression Streams', () => {
  it('finds both formats in this runtime (Node 20 has them)', () => {
    expect(compressionFormats()).toEqual({ gzip: true, 'deflate-raw': true });
    expect(describeCompression(compressionFormats())).toBe('compression streams: gzip and deflate-raw');
  });

  it('says what is missing: no streams at all, or a format the constructor refuses', () => {
    expect(compressionFormats({})).toEqual({ gzip: false, 'deflate-raw': false });
    // An engine from before deflate-raw: its constructors throw TypeError on that format.
    class Older {
      constructor(format: string) {
        if (format !== 'gzip' && format !== 'deflate') throw new TypeError(`unsupported format ${format}`);
      }
    }
    const older = compressionFormats({ CompressionStream: Older, DecompressionStream: Older });
    expect(older).toEqual({ gzip: true, 'deflate-raw': false });
    expect(describeCompression(older)).toBe('compression streams: no deflate-raw (.docx files cannot be imported)');
    expect(describeCompression({ gzip: false, 'deflate-raw': false })).toBe(
      'compression streams: no gzip or deflate-raw (index bundles cannot be read or written; .docx files cannot be imported)',
    );
  });
});

describe('Intl.Segmenter', () => {
  it('is found by its presence, and the log line names each path', () => {
    expect(hasWordSegmenter()).toBe(true);
    expect(hasWordSegmenter({})).toBe(false);
    expect(hasWordSegmenter({ Segmenter: 'not a constructor' })).toBe(false);
    expect(describeWordSegmenter()).toMatch(/^word segmenter: Intl\.Segmenter/);
    expect(describeWordSegmenter(false)).toMatch(/^word segmenter: none \(no Intl\.Segmenter\).*bigrams/);
  });
});

describe('WebGPU and workers', () => {
  it('the WebGPU line follows the adapter found: none, a software fallback, a hardware one', () => {
    expect(describeWebGpu({ node: false, webgpu: false })).toMatch(/no adapter .* runs on WASM/);
    expect(describeWebGpu({ node: false, webgpu: true, webgpuSoftware: true })).toMatch(/software fallback .* runs on WASM/);
    expect(describeWebGpu({ node: false, webgpu: true, webgpuSoftware: false })).toMatch(/hardware adapter; the model may run on it/);
  });

  it('encoder workers: none in Node, else one per core up to 4', () => {
    expect(defaultEncoderWorkers({ node: true, webgpu: false })).toBe(0);
  });
});

describe('onnxruntime-web threads', () => {
  it('every core up to 4 only when cross-origin isolated, else 1', () => {
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 8 } })).toBe(4);
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 2 } })).toBe(2);
    expect(wasmThreads({ crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } })).toBe(1);
    expect(wasmThreads({})).toBe(1);
  });
});
