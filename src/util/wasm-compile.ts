/**
 * Compiling and instantiating the emitted kernel modules (wasm-module.ts writes them), one way for
 * every kernel family — the scan kernels (engine/index/vectors), the graph's knn kernels
 * (engine/graph), the encoder (models/encoder-runtime): each module is compiled once per key and
 * kept, and instantiated over a memory imported as ("e", "m"). A module this runtime rejects (no
 * SIMD or relaxed SIMD, a CSP without 'wasm-unsafe-eval') is undefined, remembered as such, and the
 * caller runs its JS twin or another runtime.
 */

type Bytes = Uint8Array<ArrayBuffer>;

const validates = (bytes: Bytes): boolean => typeof WebAssembly === 'object' && WebAssembly.validate(bytes);

/** Compiles `bytes` synchronously, or undefined where the runtime rejects them. */
export function compileModule(bytes: Bytes): WebAssembly.Module | undefined {
  try {
    return validates(bytes) ? new WebAssembly.Module(bytes) : undefined;
  } catch {
    return undefined;
  }
}

/** Compiles `bytes` with `WebAssembly.compile` (the engine may compile off the calling thread), or undefined where the runtime rejects them. */
export async function compileModuleAsync(bytes: Bytes): Promise<WebAssembly.Module | undefined> {
  try {
    return validates(bytes) ? await WebAssembly.compile(bytes) : undefined;
  } catch {
    return undefined;
  }
}

/** The exports of an instance of a kernel module over `memory` (throws where it does not instantiate). */
export function instantiate<E>(module: WebAssembly.Module, memory: WebAssembly.Memory): E {
  return new WebAssembly.Instance(module, { e: { m: memory } }).exports as E;
}

/**
 * Kernel modules by key, each compiled once (by whichever of `module` and `load` asks first) and
 * kept for the life of the page or worker. `bytes` emits a key's module; `id` names the key in the
 * cache (the key itself by default).
 */
export class ModuleCache<K> {
  private readonly compiled = new Map<string | number, WebAssembly.Module | null>();
  private readonly compiling = new Map<string | number, Promise<WebAssembly.Module | undefined>>();

  constructor(
    private readonly bytes: (key: K) => Bytes,
    private readonly id: (key: K) => string | number = (key) => key as string | number,
  ) {}

  /** The module, compiled synchronously the first time: for call sites that cannot wait (the modules there are a few KB). */
  module(key: K): WebAssembly.Module | undefined {
    const id = this.id(key);
    let m = this.compiled.get(id);
    if (m === undefined) this.compiled.set(id, (m = compileModule(this.bytes(key)) ?? null));
    return m ?? undefined;
  }

  /** The module, compiled asynchronously the first time (concurrent calls share one compile). */
  load(key: K): Promise<WebAssembly.Module | undefined> {
    const id = this.id(key);
    const m = this.compiled.get(id);
    if (m !== undefined) return Promise.resolve(m ?? undefined);
    let p = this.compiling.get(id);
    if (!p) {
      p = compileModuleAsync(this.bytes(key)).then((c) => {
        this.compiling.delete(id);
        if (!this.compiled.has(id)) this.compiled.set(id, c ?? null); // a synchronous compile meanwhile wins
        return this.compiled.get(id) ?? undefined;
      });
      this.compiling.set(id, p);
    }
    return p;
  }

  /** The exports of an instance over `memory`, or undefined where the module does not compile or instantiate here. */
  instance<E>(key: K, memory: WebAssembly.Memory): E | undefined {
    const m = this.module(key);
    if (!m) return undefined;
    try {
      return instantiate<E>(m, memory);
    } catch {
      return undefined;
    }
  }
}
