/** The one compile-and-instantiate path of every kernel module (src/util/wasm-compile.ts). */
import { describe, expect, it } from 'vitest';
import { Code } from '../../src/util/wasm-code.ts';
import { ModuleCache } from '../../src/util/wasm-compile.ts';
import { I32, moduleBytes } from '../../src/util/wasm-module.ts';

/** A module exporting add(a, b) + k, and reading nothing of its memory. */
const adder = (k: number) => moduleBytes([new Code('add', [I32, I32], [I32]).get(0).get(1).op('i32_add').i32(k).op('i32_add').fn()]);
type Adder = { add(a: number, b: number): number };
const BAD = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0xff]);

/** A cache over `adder` (key < 0: bytes that do not validate) counting how often it emits bytes. */
function counted() {
  const emitted: number[] = [];
  const cache = new ModuleCache<number>((k) => {
    emitted.push(k);
    return k < 0 ? BAD : adder(k);
  });
  return { cache, emitted };
}

describe('ModuleCache', () => {
  it('compiles a key once, whether asked synchronously or not, and instantiates it over each memory', async () => {
    const { cache, emitted } = counted();
    const m = cache.module(3)!;
    expect(m).toBeInstanceOf(WebAssembly.Module);
    expect(await cache.load(3)).toBe(m);
    expect(cache.module(3)).toBe(m);
    const a = cache.instance<Adder>(3, new WebAssembly.Memory({ initial: 1 }))!;
    const b = cache.instance<Adder>(3, new WebAssembly.Memory({ initial: 1 }))!;
    expect([a.add(1, 2), b.add(10, 20)]).toEqual([6, 33]);
    expect(a).not.toBe(b);
    expect(cache.instance<Adder>(5, new WebAssembly.Memory({ initial: 1 }))!.add(0, 0)).toBe(5);
    expect(emitted).toEqual([3, 5]);
  });

  it('shares one asynchronous compile between concurrent loads, and a later synchronous ask reuses it', async () => {
    const { cache, emitted } = counted();
    const [x, y] = await Promise.all([cache.load(7), cache.load(7)]);
    expect(x).toBeInstanceOf(WebAssembly.Module);
    expect(y).toBe(x);
    expect(cache.module(7)).toBe(x);
    expect(emitted).toEqual([7]);
  });

  it('remembers bytes the runtime rejects as undefined, without emitting them again', async () => {
    const { cache, emitted } = counted();
    expect(cache.module(-1)).toBeUndefined();
    expect(await cache.load(-1)).toBeUndefined();
    expect(cache.instance(-1, new WebAssembly.Memory({ initial: 1 }))).toBeUndefined();
    expect(await cache.load(-2)).toBeUndefined();
    expect(cache.module(-2)).toBeUndefined();
    expect(emitted).toEqual([-1, -2]);
  });

  it('is undefined where the memory does not fit the module (an instance that fails is no throw)', () => {
    const cache = new ModuleCache<number>(() => moduleBytes([new Code('f', []).fn()], { minPages: 2 }));
    expect(cache.instance(0, new WebAssembly.Memory({ initial: 1 }))).toBeUndefined();
    expect(cache.instance(0, new WebAssembly.Memory({ initial: 2 }))).toBeDefined();
  });

  it('keys by `id` where the key is an object', () => {
    const cache = new ModuleCache<{ k: number }>(({ k }) => adder(k), ({ k }) => k);
    expect(cache.module({ k: 1 })).toBe(cache.module({ k: 1 }));
  });
});
