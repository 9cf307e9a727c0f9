/**
 * `encodeValueInSlices` (src/bundle/codec.ts) writes the bytes `encodeValue` writes, for values of
 * every shape the store hands it (nested objects and arrays, typed arrays at every depth, members
 * JSON leaves out or writes as null), pauses often, and refuses what encodeValue refuses.
 */
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, encodeValueInSlices } from '../../src/bundle/codec.ts';
import { rng } from '../../src/util/prng.ts';
import { runToEnd } from '../../src/util/slices.ts';

function randomValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 4 || r < 0.3) {
    const leaf = [() => Math.round(rand() * 1e6) / 7, () => `s${Math.floor(rand() * 99)}\u00e9"\n`, () => rand() < 0.5, () => null, () => undefined, () => Float32Array.from({ length: Math.floor(rand() * 9) }, () => rand()), () => Int32Array.of(1, -2, 3), () => new Uint8Array(3)];
    return leaf[Math.floor(rand() * leaf.length)]();
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 6) }, () => randomValue(rand, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, (_, i) => [`k${i}${rand() < 0.2 ? '"x' : ''}`, randomValue(rand, depth + 1)]));
}

describe('encodeValueInSlices', () => {
  it('writes the same bytes as encodeValue, for 150 random values', () => {
    const rand = rng(45);
    for (let n = 0; n < 150; n++) {
      const v = { snapshot: randomValue(rand, 0), list: Array.from({ length: 40 }, () => randomValue(rand, 2)) };
      expect(Buffer.from(runToEnd(encodeValueInSlices(v)))).toEqual(Buffer.from(encodeValue(v)));
    }
  });

  it('pauses between parts and decodes back to the value', () => {
    const v = { chunks: Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, vector: Float32Array.from({ length: 8 }, (_, j) => i + j), gone: undefined })) };
    const work = encodeValueInSlices(v);
    let pauses = 0;
    let r = work.next();
    for (; !r.done; r = work.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(1000);
    const back = decodeValue(r.value) as { chunks: { id: string; vector: Float32Array }[] };
    expect(back.chunks[999].id).toBe('c999');
    expect([...back.chunks[999].vector]).toEqual([999, 1000, 1001, 1002, 1003, 1004, 1005, 1006]);
  });

  it('refuses a Map or a function at any depth, as encodeValue does', () => {
    for (const bad of [{ a: [{ b: new Map() }] }, { a: { b: { c: { d: () => 1 } } } }]) {
      expect(() => encodeValue(bad)).toThrow(TypeError);
      expect(() => runToEnd(encodeValueInSlices(bad))).toThrow(TypeError);
    }
  });
});
