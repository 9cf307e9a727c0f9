/**
 * The engine worker: hosts one RCP/1 server, one session per MessagePort. Composition root only —
 * storage, models, engine and protocol handlers are built here and wired together; comlink
 * carries the control plane (connect / status), never RCP frames.
 */
import * as Comlink from 'comlink';
import { browserCoordination } from './engine/state/coordination.ts';
import { Engine } from './engine/engine.ts';
import { ModelRuntime } from './models/runtime.ts';
import type { Capabilities } from './protocol/types.ts';
import type { Backend } from './server/backend.ts';
import { createEngineBackend } from './server/engine-backend.ts';
import { LOG_LEVELS } from './server/log-levels.ts';
import { createModelHandlers } from './server/model-handlers.ts';
import { serve } from './server/serve.ts';
import { SERVER_INFO } from './server/server-info.ts';
import { createInpageHandlers, INPAGE_CAPABILITIES, INPAGE_WRITES } from './server/inpage-handlers.ts';
import { mapStorageError, openIndexedDbStore } from './storage/index.ts';
import { lazyStore } from './storage/lazy-store.ts';
import type { ControlApi, WorkerStatus } from './transport/control.ts';
import { PortTransport } from './transport/port-transport.ts';

/** Texts accepted by one `embed` call (§4.7 advertised bound). */
const EMBED_BATCH_LIMIT = 256;
/** Passages accepted by one `rerank` call. */
const RERANK_MAX_CANDIDATES = 1000;

interface Runtime {
  engine: Engine;
  backend: Backend;
  models: ModelRuntime | undefined;
  opened: Promise<unknown>;
  openError?: string;
}

/**
 * Model capabilities, fixed before the embedder's weights load (§13.2): dimension and identity come
 * from the folder (manifest, or config.json + ONNX hash); `cross-encoder` only when one loaded.
 */
function modelCapabilities(models: ModelRuntime): Capabilities {
  const { dimension } = models;
  const rerankers = models.rerankers();
  return {
    embed: { dimension, identity: models.identity, batchLimit: EMBED_BATCH_LIMIT, normalized: models.normalized, encodings: ['json', 'f32-base64'], modalities: ['text'] },
    multiVector: { dimension, identity: models.identity, similarity: 'cosine', modalities: ['text'] },
    rerank: { methods: rerankers.map((r) => r.method), maxCandidates: RERANK_MAX_CANDIDATES, models: rerankers.map((r) => r.identity) },
  };
}

async function start(): Promise<Runtime> {
  let indexOpened: (v?: unknown) => void = () => undefined;
  const models = await ModelRuntime.open({ loadAfter: new Promise((ok) => (indexOpened = ok)) });
  // Other tabs run their own worker and engine over the same database: writes take a Web Lock,
  // commits are broadcast, and a lost connection (another tab deleted the database) forces a reload.
  let lost = (): void => undefined;
  const engine = new Engine({
    store: lazyStore(openIndexedDbStore('rcp-engine', { onConnectionLost: () => lost() })),
    embedder: models?.embedder,
    reranker: models?.rerankers(),
    coordination: browserCoordination('rcp-engine'),
  });
  lost = () => engine.invalidate();
  const runtime: Runtime = { engine, models, opened: Promise.resolve(), backend: undefined as unknown as Backend };
  runtime.opened = engine.open().catch((e: unknown) => {
    runtime.openError = e instanceof Error ? e.message : String(e);
    throw e;
  });
  runtime.opened.catch(() => undefined);
  runtime.opened.then(indexOpened, indexOpened);
  const ready = runtime.opened.then(() => engine);
  ready.catch(() => undefined); // surfaced per request as -32010
  // Only IndexedDB's own failures are storage errors; a RangeError or TypeError is a bug, never "IndexedDB …".
  const mapError = (e: unknown) =>
    e instanceof DOMException || (e instanceof Error && e.name === 'StorageUnavailableError') ? mapStorageError(e) : undefined;
  const backend = createEngineBackend({
    serverInfo: SERVER_INFO,
    engine: ready,
    // Progress and logs are served by the session layer for every method (§9, §17.1).
    capabilities: {
      ...engine.capabilities(),
      ...(models ? modelCapabilities(models) : {}),
      streaming: {},
      log: { levels: [...LOG_LEVELS] },
      ...INPAGE_CAPABILITIES,
    },
    extraHandlers: models ? createModelHandlers(() => models.loaded(), models.rerankers()) : undefined,
    subscribe: models ? (listener) => models.subscribe(listener) : undefined,
    mapError,
  });
  runtime.backend = {
    ...backend,
    vendorHandlers: createInpageHandlers({ engine: ready, mapError }),
    writeMethods: ['index/add', 'index/delete', ...INPAGE_WRITES],
  };
  return runtime;
}

const runtime = start();
let openPorts = 0;

const control: ControlApi = {
  async connect() {
    const { backend } = await runtime;
    const { port1, port2 } = new MessageChannel();
    openPorts++;
    const transport = new PortTransport(port1);
    serve(transport, backend);
    const closed = transport.onclose;
    transport.onclose = () => {
      openPorts--;
      closed?.();
    };
    return Comlink.transfer(port2, [port2]);
  },
  async status(): Promise<WorkerStatus> {
    const rt = await runtime;
    const ready = await Promise.race([rt.opened.then(() => true, () => false), new Promise<boolean>((ok) => setTimeout(ok, 0, false))]);
    const stats = ready ? rt.engine.stats() : { documents: 0, chunks: 0, indexVersion: undefined };
    return { ready, error: rt.openError, sessions: openPorts, ...stats, model: rt.models?.status() };
  },
};

Comlink.expose(control);
