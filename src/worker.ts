/**
 * The engine worker: hosts one RCP/1 server, one session per MessagePort. Composition root only —
 * storage, models, engine and protocol handlers are built here, each once and in dependency
 * order, and wired together; comlink carries the control plane (configure / connect / status),
 * never RCP frames.
 *
 * Start-up (on `configure`, or with the defaults on the first `connect`/`status`): IndexedDB opens
 * and the index is read at once, while the models' folder is resolved; the embedder's weights load
 * only after that read, so a cold start's first sparse answer does not compete with the model.
 */
import * as Comlink from 'comlink';
import type { BundleStore } from './bundle/bundle-store.ts';
import { browserCoordination, type Coordination } from './engine/state/coordination.ts';
import { describeWordSegmenter } from './engine/analysis/analyzer.ts';
import { loadLanguageDetector } from './engine/analysis/language.ts';
import { Engine } from './engine/engine.ts';
import { availableModels } from './models/available.ts';
import { attachEncoderHost } from './models/encoder-runtime/encoder-spawn.ts';
import { AUTO_MODEL, checkModelName } from './models/built-models.ts';
import { readModelChoice, writeModelChoice, type ModelChoice } from './models/model-choice.ts';
import type { ModelRuntime } from './models/runtime.ts';
import { DEFAULT_MODEL_BASE } from './models/settings.ts';
import type { ControlApi, EngineConfig, IndexLoss, WorkerStatus } from './protocol/control.ts';
import { SERVER_INFO, type Backend } from './server/backend.ts';
import { advertisedCapabilities, modelCapabilities, SESSION_CAPABILITIES, withoutDenseModel } from './server/capabilities.ts';
import { createEngineBackend, type EngineBackendOptions } from './server/engine-backend.ts';
import { createInpageHandlers, INPAGE_CAPABILITIES, INPAGE_DEADLINES, INPAGE_WRITES } from './server/inpage-handlers.ts';
import { createGraphFeedbackHandlers, FEEDBACK_WRITES } from './server/graph-feedback-handlers.ts';
import { createModelHandlers, createSparseEmbedHandler } from './server/model-handlers.ts';
import { serve } from './server/rcp-session.ts';
import { openIndexedDbStore } from './storage/index.ts';
import { describeLoss, memoryWitnessFile, opfsWitnessFile, Witness } from './storage/witness.ts';
import { lazyStore } from './storage/lazy-store.ts';
import { describeRestore, keepRecoveryLog, type Recovery } from './storage/recovery/recovery.ts';
import { readAhead, type ReadAheadStore } from './storage/read-ahead.ts';
import { bundleInpageCapabilities, withoutWrites } from './server/serve-bundle.ts';
import { PortTransport } from './transport/port-transport.ts';
import { compressionFormats, describeCompression } from './util/compression.ts';
import { startBeats } from './util/heartbeat.ts';

const DEFAULT_DATABASE = 'rcp-engine';
/**
 * How long the model waits, on an empty index, for a first write to commit before it loads anyway
 * (the playground's first sample batch commits well within it; something that needs the model starts its load at once).
 */
const FIRST_WRITE_GRACE_MS = 1500;
/** How long a bundle's model waits for the first query's answer before it loads anyway (a visitor who opened search and has not typed). */
const BUNDLE_MODEL_GRACE_MS = 3000;
/**
 * How long an `initialize` answer waits for the open's comparison with the witness and the
 * recovery log, so that what it found (a loss, a restore) is in the first session's notes too.
 * Usually a few ms; past this the answer goes without, and the session hears it as a log.
 */
const OPEN_NEWS_WAIT_MS = 3000;
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Runtime {
  engine: Engine;
  models: ModelRuntime | undefined;
  modelBase: string;
  /** Settles when the engine opened its storage; rejects (→ -32010 per request) if it could not. */
  opened: Promise<void>;
  /** The record of what the index held, kept outside the database (src/storage/witness.ts). */
  witness: Witness;
  /** The recovery log beside the database (src/storage/recovery); absent for a bundle. */
  recovery: Recovery | undefined;
  /** Settles once the opened index was compared with that record: the loss being reported, if any. */
  indexLoss: Promise<IndexLoss | undefined>;
  backend: Backend;
  deadlines?: Record<string, number>;
}

/** The fields that are set (an explicit undefined would override the models' defaults). */
const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * The bundle reader (it imports its static-model reader itself, for a bundle that has one). The
 * format module it shares with that reader is a chunk of its own: asked for at once beside it, not
 * after it.
 */
const loadBundleReader = () => Promise.all([import('./bundle/bundle-store.ts'), import('./bundle/format.ts')]).then(([reader]) => reader);
/** Started now when the page named this worker for a bundle (client/boot.ts), not once `configure` arrives. */
const bundleReader = (self as { name?: string }).name === 'rcp-engine:bundle' ? loadBundleReader() : undefined;
bundleReader?.catch(() => undefined); // reported by the start that awaits it

/**
 * The model the worker runs: `config.model` when given (checked against the built models before
 * anything opens; stored as this browser's choice when asked), else the stored choice.
 */
async function modelChoice(config: EngineConfig): Promise<ModelChoice | undefined> {
  if (config.model === undefined) return readModelChoice();
  const refused = await checkModelName(config.model, config.modelBase ?? DEFAULT_MODEL_BASE, false);
  if (refused) throw new Error(refused);
  const choice = config.model === AUTO_MODEL ? undefined : { embedder: config.model };
  if (config.rememberModel) await writeModelChoice(choice);
  return choice;
}

/** A bundle built ahead is served read-only, with the model it was built with (src/bundle); imported only then. */
async function openBundle(config: EngineConfig): Promise<BundleStore | undefined> {
  if (config.bundle === undefined) return undefined;
  return (await (bundleReader ?? loadBundleReader())).BundleStore.open(config.bundle, { primed: config.bundlePrimed });
}

/** What the engine reads and writes through, and the records kept beside it. */
interface Storage {
  store: ReadAheadStore;
  coordination: Coordination | undefined;
  witness: Witness;
  recovery: Recovery | undefined;
  /** Fires when another tab deleted the database: the engine must reopen. */
  connectionLost: EventTarget;
  /** What an IndexedDB upgrade said it discarded, once the database opened. */
  upgrade: { dataLoss?: string };
}

/** The bundle, read-only, or this browser's own database with its witness and recovery log. */
function openStorage(database: string, bundle: BundleStore | undefined): Storage {
  // Other tabs run their own worker and engine over the same database: writes take a Web Lock,
  // commits are broadcast, and a lost connection (another tab deleted the database) forces a reload.
  const coordination = bundle ? undefined : browserCoordination(database);
  const connectionLost = new EventTarget();
  // Read before the database opens, so no commit can replace it first. Without OPFS nothing
  // outlives the database, so a loss cannot be told (kept in memory: every check passes).
  const witness = new Witness((bundle ? undefined : opfsWitnessFile(database)) ?? memoryWitnessFile());
  const upgrade: { dataLoss?: string } = {};
  // Beside the database and outside it, what rebuilds an acknowledged index the browser discarded.
  const own = bundle
    ? undefined
    : keepRecoveryLog(
        openIndexedDbStore(database, {
          onConnectionLost: () => connectionLost.dispatchEvent(new Event('lost')),
          onUpgrade: (u) => (upgrade.dataLoss ??= u.dataLoss),
        }),
        { database, coordination },
      );
  const store = readAhead(lazyStore(bundle ? Promise.resolve(bundle) : own!.store, bundle?.partial), coordination);
  return { store, coordination, witness, recovery: own?.recovery, connectionLost, upgrade };
}

/** A promise settled later, by whoever holds `settle`. */
function deferred<T>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (settle = resolve));
  return { promise, settle };
}

/** The embedders: a static-model bundle's rows, or the model runtime (loading once `loadAfter` settles), or none. */
async function openModels(config: EngineConfig, bundle: BundleStore | undefined, chosen: ModelChoice | undefined, loadAfter: Promise<unknown>) {
  // A bundle built with a static model carries its rows: queries are embedded from them, and no
  // model runtime (transformers.js, onnxruntime-web) is imported at all.
  const staticDense = config.models === false ? undefined : bundle?.staticDense;
  const staticModel = staticDense && bundle ? (await import('./bundle/static-dense.ts')).staticEmbedder(staticDense, bundle.manifest) : undefined;
  const models =
    config.models === false || (bundle && !bundle.manifest.model) || staticModel
      ? undefined
      : // Imported only then: a worker with no model (a sparse bundle) never fetches transformers.js.
        await (await import('./models/runtime.ts')).ModelRuntime.open({
          loadAfter, // settles after the index's first read (it waits for the open)
          choice: bundle?.manifest.model ? { embedder: bundle.manifest.model.name } : chosen,
          precomputedBase: config.vectorsBase,
          ...definedOnly({ modelBase: config.modelBase, wasmPaths: config.wasmPaths, device: config.device }),
        });
  return { staticModel, models, rerankers: models?.rerankers() ?? [] };
}
type Models = Awaited<ReturnType<typeof openModels>>;

/** The engine over the storage; each commit is noted in the witness, and the first one settles `firstCommit`. */
function createEngine(storage: Storage, m: Models, bundle: BundleStore | undefined, firstCommit: () => void): Engine {
  const { witness } = storage;
  const engine = new Engine({
    store: storage.store,
    embedder: m.staticModel ?? m.models?.embedder,
    reranker: m.rerankers,
    coordination: storage.coordination,
    // A slow encoder embeds in the background: sparse search sees a write at once (status shows the backlog).
    embedInBackground: m.models?.catalog?.backgroundEmbedding === true,
    ...(bundle ? { readOnly: true, fields: bundle.manifest.fields } : {}),
    detectLanguage: loadLanguageDetector,
    // A clear is the person starting over: what was lost before is no longer news.
    onCommitted: (summary, cleared) => {
      firstCommit();
      if (cleared) witness.dismiss(summary);
      else witness.note(summary);
    },
  });
  storage.connectionLost.addEventListener('lost', () => engine.invalidate());
  return engine;
}

/**
 * What the model's load waits for once the index has opened. A bundle's visitor is waiting for a
 * first answer, which the model's download and compile would slow (measured: a 46 MB MiniLM load
 * beside it doubled the first sparse answer); a hybrid request before then starts the load itself
 * (models/runtime.ts). An empty index waits for its first commit, a while.
 */
function modelLoadWaits(engine: Engine, opened: Promise<void>, bundle: BundleStore | undefined, committed: Promise<void>): Promise<unknown> {
  return opened
    .then(() => (bundle ? Promise.race([engine.firstAnswer(), delay(BUNDLE_MODEL_GRACE_MS)]) : engine.size === 0 ? Promise.race([committed, delay(FIRST_WRITE_GRACE_MS)]) : undefined))
    .catch(() => undefined);
}

/** Index loss and warnings, told to every session that listens, and in `notes` (once `found` settles, or after OPEN_NEWS_WAIT_MS). */
function indexNews(storage: Storage, models: Models['models'], found: Promise<unknown>): Pick<EngineBackendOptions, 'subscribe' | 'notes'> {
  const { witness, recovery } = storage;
  let known = false;
  const settled = found.catch(() => undefined).then(() => void (known = true));
  return {
    subscribe: (listener) => {
      // A loss is news to every session that listens: found later, or already (then after the initialize answer).
      const tell = (loss: IndexLoss) => listener('error', describeLoss(loss), { 'x-inpage-index-loss': loss });
      const warn = (warning: string) => listener('warning', warning);
      if (witness.loss) setTimeout(tell, 0, witness.loss);
      if (witness.warning) setTimeout(warn, 0, witness.warning);
      void recovery?.restored().then((r) => r && warn(describeRestore(r)));
      const unsubscribe = [witness.onLoss(tell), witness.onWarning(warn), models?.subscribe(listener)];
      return () => unsubscribe.forEach((u) => u?.());
    },
    notes: async () => {
      if (!known) await Promise.race([settled, delay(OPEN_NEWS_WAIT_MS)]); // no timer once the open has said
      return [...(witness.loss ? [describeLoss(witness.loss)] : []), ...(witness.warning ? [witness.warning] : []), ...(recovery?.notes() ?? [])];
    },
  };
}

/** The RCP backend over the opening engine: its capabilities, methods and vendor extension. */
function createBackend(engine: Engine, ready: Promise<Engine>, m: Models, bundle: BundleStore | undefined, storage: Storage, found: Promise<unknown>): Backend {
  const { models, rerankers } = m;
  const capabilities = advertisedCapabilities({
    engine: engine.capabilities(),
    // A static-model bundle's rows embed queries only (no `embed` method is served for it).
    models: modelCapabilities({ embedder: models?.embedder, tokenVectors: true, rerankers, sparseEncoder: models?.sparseEncoder }),
    session: SESSION_CAPABILITIES,
    extensions: [bundle ? bundleInpageCapabilities(bundle) : INPAGE_CAPABILITIES],
  });
  // A session initialized once the model is known broken is not offered what needs it.
  const degraded = withoutDenseModel(capabilities);
  return {
    ...createEngineBackend({
      serverInfo: SERVER_INFO,
      engine: ready,
      capabilities: models ? () => (models.loadFailed ? degraded : capabilities) : capabilities,
      rerankers,
      extraHandlers: {
        ...(models ? createModelHandlers(() => models.encoder(), rerankers) : {}),
        ...(models?.sparseEncoder ? createSparseEmbedHandler(models.sparseEncoder) : {}),
        ...createGraphFeedbackHandlers({ engine: ready }),
      },
      ...indexNews(storage, models, found),
    }),
    vendorHandlers: withoutWrites(createInpageHandlers({ engine: ready }), bundle ? INPAGE_WRITES : []),
    writeMethods: bundle ? [] : ['index/add', 'index/delete', ...INPAGE_WRITES, ...FEEDBACK_WRITES],
    deadlines: INPAGE_DEADLINES,
    initializeMeta: models ? () => ({ models: { embed: models.identityNotes() } }) : undefined,
  };
}

/**
 * An aggregator only when remote engines are configured (§7.13: `catalog` means it federates).
 * Imported only then: the federation client is not fetched by a worker that serves its own index alone.
 */
async function federated(plain: Backend, f: EngineConfig['federation']): Promise<Backend> {
  if (!f?.engines.length) return plain;
  return (await import('./server/aggregator.ts')).withFederation(plain, { ...f, identity: f.identity ?? `rcp-in-page:${crypto.randomUUID().slice(0, 8)}` });
}

async function start(config: EngineConfig): Promise<Runtime> {
  // What this browser offers, by feature detection (docs/browsers.md, "Which path each browser takes").
  console.info(`[rcp] ${describeWordSegmenter()}`);
  console.info(`[rcp] ${describeCompression(compressionFormats())}`);
  // An unknown model name refuses the start before the index opens: nothing is indexed with a model nobody chose.
  const chosenModel = config.bundle === undefined && config.models !== false ? await modelChoice(config) : undefined;
  const bundle = await openBundle(config);
  const storage = openStorage(config.database ?? DEFAULT_DATABASE, bundle);
  // On an empty index, the first write (the playground seeding its sample, an app's first import)
  // commits before the model's weights load and its encoder workers spawn: both run on this
  // thread too, and would delay that write and with it the first answers. Released once the index
  // has opened (at once when it holds documents).
  const modelGate = deferred<unknown>();
  const committed = deferred<void>();
  const m = await openModels(config, bundle, chosenModel, modelGate.promise);
  const engine = createEngine(storage, m, bundle, () => committed.settle());
  const opened = engine.open();
  modelGate.settle(modelLoadWaits(engine, opened, bundle, committed.promise));
  // The first add detects languages: load the detector (a 1 MB module) once the index is open, not when that add arrives.
  if (!bundle) opened.then(() => loadLanguageDetector()).catch(() => undefined);
  const ready = opened.then(() => engine);
  ready.catch(() => undefined); // surfaced per request as -32010
  const { witness, recovery } = storage;
  const indexLoss = opened.then(
    () => witness.check(engine.openedAs!, { storedId: engine.openedAs!.storedId, missing: engine.missing, browserDataLoss: storage.upgrade.dataLoss }),
    () => witness.loss,
  );
  const found = Promise.all([indexLoss, recovery?.restored()]);
  const backend = await federated(createBackend(engine, ready, m, bundle, storage, found), config.federation);
  return { engine, models: m.models, modelBase: config.modelBase ?? DEFAULT_MODEL_BASE, opened, witness, recovery, indexLoss, backend, deadlines: config.deadlines };
}

/** A document of the playground's built-in sample corpus (scripts/build-sample.ts gives each a `sample:` URI). */
const isBuiltInSample = (d: { meta: Record<string, unknown> }): boolean => typeof d.meta.uri === 'string' && d.meta.uri.startsWith('sample:');

/** Started by `configure` or, with the defaults, by the first `connect`/`status`. */
let runtime: Promise<Runtime> | undefined;
const started = (config: EngineConfig = {}): Promise<Runtime> => (runtime ??= start(config));
let openPorts = 0;

/** Whether the engine has opened, without waiting for it: true, false, or the reason it could not. */
const openState = (opened: Promise<void>): Promise<{ ready: boolean; error?: string }> =>
  Promise.race([
    opened.then(() => ({ ready: true }), (e: unknown) => ({ ready: false, error: e instanceof Error ? e.message : String(e) })),
    new Promise<{ ready: boolean }>((ok) => setTimeout(ok, 0, { ready: false })),
  ]);

const control: ControlApi = {
  async configure(config) {
    if (runtime) throw new Error('the engine has already started: configure it before the first connect or status');
    await started(config);
  },
  async connect() {
    const { backend, deadlines } = await started();
    const { port1, port2 } = new MessageChannel();
    openPorts++;
    const transport = new PortTransport(port1);
    serve(transport, backend, deadlines);
    const closed = transport.onclose;
    transport.onclose = () => {
      openPorts--;
      closed?.();
    };
    return Comlink.transfer(port2, [port2]);
  },
  async heartbeat() {
    const { port1, port2 } = new MessageChannel();
    startBeats(port1);
    return Comlink.transfer(port2, [port2]);
  },
  async encoderHost(port) {
    attachEncoderHost(port);
  },
  async status(): Promise<WorkerStatus> {
    const rt = await started();
    const { ready, error } = await openState(rt.opened);
    const stats = ready ? { ...rt.engine.stats(), pendingVectors: rt.engine.pendingVectors(), unstoredVectors: rt.engine.unstoredVectors() } : { documents: 0, chunks: 0, indexVersion: undefined };
    // Once open, the comparison with the record follows at once: wait for it, so a lost index is never shown as merely empty.
    const loss = ready ? await rt.indexLoss : rt.witness.loss;
    const warning = rt.witness.warning;
    const restored = ready ? await rt.recovery?.restored() : undefined;
    return { ready, error, sessions: openPorts, ...stats, model: rt.models?.status(), ...(loss ? { indexLoss: loss } : {}), ...(warning ? { indexWarning: warning } : {}), ...(restored ? { indexRestored: restored } : {}) };
  },
  async indexLoss() {
    return (await started()).indexLoss;
  },
  async indexWarning() {
    const rt = await started();
    await rt.indexLoss.catch(() => undefined);
    return rt.witness.warning;
  },
  async dismissIndexLoss() {
    const rt = await started();
    await rt.opened;
    rt.witness.dismiss(rt.engine.summary());
    rt.recovery?.dismiss();
    await rt.witness.flushed();
  },
  async models() {
    const rt = await started();
    return { current: rt.models?.folder.name, available: await availableModels(rt.modelBase, rt.models?.config.dtype ?? 'q8') };
  },
  async languages() {
    const rt = await started();
    if (!(await openState(rt.opened)).ready) return undefined;
    // The person's documents: the playground's built-in sample is ours, and advice about it would argue with the default.
    const all = rt.engine.languageProfile();
    const profile = rt.engine.languageProfile(isBuiltInSample);
    return { documents: profile.total, counts: Object.fromEntries(profile.counts), ...(all.total > profile.total ? { sample: all.total - profile.total } : {}) };
  },
  async chooseModel(embedder) {
    // Takes effect when the worker restarts (the page reloads): capabilities never change under a session (§13).
    await writeModelChoice(embedder === undefined ? undefined : { embedder });
  },
};

Comlink.expose(control);
