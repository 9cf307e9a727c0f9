/**
 * `createInPageEngine()`: the library's front door. Starts the engine worker, configures it (models
 * URL, database name, device), opens one RCP session and initializes it, so the caller gets a ready
 * `RcpClient`. Adds nothing to the page: no DOM, no CSS, no globals.
 */
import type { ControlApi, EngineConfig, WorkerStatus } from '../protocol/control.ts';
import { primeBundle } from '../bundle/prime.ts';
import { PortTransport } from '../transport/port-transport.ts';
import { bootWorker, spawnEngineWorker, type WorkerHandle } from './boot.ts';
import { RcpClient, type ClientOptions } from './rcp-client.ts';

export interface InPageEngineOptions {
  /**
   * URL of the models folder (transformers.js layout plus `config.json`), relative to the page or
   * absolute. Default `/models/`. Without models there, the engine serves sparse retrieval only.
   */
  modelBase?: string;
  /** URL of onnxruntime-web's `.mjs`/`.wasm` files (relative to the page or absolute). Default `/ort/`. */
  wasmPaths?: string;
  /** IndexedDB database that holds the index. Default `rcp-engine`; give each app its own name. */
  database?: string;
  /** Where the dense model runs: `auto` (WebGPU, else WASM), `webgpu` or `wasm`. */
  device?: 'auto' | 'webgpu' | 'wasm';
  /**
   * The dense model: a folder name under `modelBase` built by `npm run models` (e.g.
   * `multilingual-e5-small`), `'auto'` for the default, `false` for sparse retrieval only (no model
   * files fetched). A name that is not built rejects with the list of built ones, before the index
   * opens. An index embedded by another model is re-embedded in the background. Default (`true`):
   * the model chosen in this browser's playground, else the default.
   */
  models?: boolean | string;
  /**
   * URL of a folder of precomputed document vectors, `vectors-<model folder>.bin`
   * (scripts/build-sample-vectors.ts), used instead of inference for the texts they cover. Default: none.
   */
  vectorsBase?: string;
  /**
   * URL of a static index bundle built by `rcp-in-page index` (its folder or its rcp-bundle.json),
   * relative to the page or absolute. The engine then serves that bundle, read-only, with the
   * model it was built with (from `modelBase`); `database` is not used. Default: none.
   */
  bundle?: string;
  /**
   * The engine worker. Default: the `worker.js` beside this module, which bundlers pick up. Pass
   * your own (e.g. `new Worker('/vendor/rcp-in-page/worker.js', { type: 'module' })`) to serve it
   * from elsewhere.
   */
  worker?: Worker;
  /** Options of the RCP client (client name, logs, frame tap, default timeout). */
  client?: ClientOptions;
}

/** A ready RCP client on its own worker, with the worker's control plane. */
export class InPageEngine extends RcpClient {
  private readonly handle: WorkerHandle;

  /** @internal Use `createInPageEngine()`. */
  constructor(port: MessagePort, handle: WorkerHandle, opts?: ClientOptions) {
    super(new PortTransport(port), opts);
    this.handle = handle;
  }

  /** The worker's control plane (status, more session ports). */
  get control(): ControlApi {
    return this.handle.control;
  }

  /** Index and model state, without an RCP round trip. */
  status(): Promise<WorkerStatus> {
    return this.handle.control.status();
  }

  /** A further, independent RCP session on the same engine (not yet initialized). */
  openSession(opts?: ClientOptions): Promise<RcpClient> {
    return this.handle.openClient(opts);
  }

  /** Closes the session and stops the worker. */
  terminate(): void {
    this.close();
    this.handle.terminate();
  }
}

/** A URL the worker can fetch: relative ones resolve against the page, since the worker's own base differs. */
function absolute(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href;
  const href = base ? new URL(url, base).href : url;
  return href.endsWith('/') ? href : `${href}/`;
}

/** `url` resolved against the page (as is: a bundle URL may name its manifest file). */
function resolved(url: string | undefined): string | undefined {
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href;
  return url === undefined || !base ? url : new URL(url, base).href;
}

/** Starts an in-page engine and returns its initialized RCP client. Rejects (and stops the worker) if it cannot start. */
export async function createInPageEngine(options: InPageEngineOptions = {}): Promise<InPageEngine> {
  const worker = options.worker ?? spawnEngineWorker({ bundle: options.bundle !== undefined });
  const handle = bootWorker(worker);
  // A worker script that fails to load never answers its control plane: fail instead of hanging.
  const failed = new Promise<never>((_, reject) =>
    worker.addEventListener('error', (ev) => reject(new Error(`the engine worker failed to start${ev.message ? `: ${ev.message}` : ''}`)), { once: true }),
  );
  const orFail = <T>(p: Promise<T>): Promise<T> => Promise.race([p, failed]);
  try {
    const bundle = resolved(options.bundle);
    // The bundle's manifest and core are fetched here while the worker's script loads, not after it.
    const bundlePrimed = bundle === undefined ? undefined : await primeBundle(bundle);
    const config: EngineConfig = { modelBase: absolute(options.modelBase), wasmPaths: absolute(options.wasmPaths), database: options.database, device: options.device, models: options.models === false ? false : undefined, model: typeof options.models === 'string' ? options.models : undefined, vectorsBase: absolute(options.vectorsBase), bundle, bundlePrimed };
    await orFail(handle.control.configure(Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined))));
    const engine = new InPageEngine(await orFail(handle.openPort()), handle, options.client);
    await orFail(engine.connect());
    return engine;
  } catch (e) {
    handle.terminate();
    throw e;
  }
}
