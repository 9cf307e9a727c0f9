/**
 * The emitted WebAssembly, byte for byte: every kernel module's sha256 against the fixture taken
 * before the knn kernels moved onto the `Code` builder (kernel-bytes.json). A change to the emitted
 * bytes fails here first; where it is meant, the fixture entry changes with it and the kernel's JS
 * twin test (graph-knn, dense-vectors, encoder-kernels) shows its outputs unchanged.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kernelModules } from './kernel-bytes.ts';

const modules = kernelModules();
const expected = JSON.parse(readFileSync(new URL('./kernel-bytes.json', import.meta.url), 'utf8')) as Record<string, string>;

describe('emitted kernel modules', () => {
  it('are the fixture bytes, module for module', () => {
    const got = Object.fromEntries([...modules].map(([k, b]) => [k, createHash('sha256').update(b).digest('hex')]));
    expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
    expect(got).toEqual(expected);
  });

  it('validate where this runtime has the features they need', () => {
    for (const [name, bytes] of modules) {
      if (name.includes('relaxed')) continue; // Node 20 has relaxed SIMD only behind a flag
      expect(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>), name).toBe(true);
    }
  });
});
