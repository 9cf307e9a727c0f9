/**
 * The playground's composition root: applies the theme and the layout (areas, inspector pane),
 * boots the engine worker, opens the page's own RCP session (every frame goes to the inspector),
 * mounts each panel and seeds the sample corpus on first run. Each panel lives in its own module;
 * this file only wires them together.
 */
import { createInPageEngine } from '../client/in-page-engine.ts';
import { clearIndex, hasInpage, listDocuments } from '../client/inpage.ts';
import type { WorkerStatus } from '../protocol/control.ts';
import { mountAreas } from './areas.ts';
import { bundleParam, mountBundle } from './bundle-panel.ts';
import { mountCapabilities } from './capabilities-panel.ts';
import { changeThrottle } from './change-throttle.ts';
import { mountCommunityLayer } from './community-layer.ts';
import { mountCorpusMap } from './corpus-map-view.ts';
import { mountDocFeedback } from './doc-feedback.ts';
import { mountDocPanel } from './doc-panel.ts';
import { mountDocumentsPanel } from './documents-panel.ts';
import { byId } from './dom.ts';
import { mountEngineWatch } from './engine-watch.ts';
import { mountEngines } from './engines-panel.ts';
import { errorView } from './errors.ts';
import { FrameLog } from './frame-log.ts';
import { markQuarantined, type HitTarget } from './hits-view.ts';
import { mountImport } from './import-panel.ts';
import { mountIndexLoss } from './index-loss-view.ts';
import { mountInspector } from './inspector.ts';
import { mountModelPicker } from './model-picker.ts';
import { mountModelAdvice } from './model-advice.ts';
import { mountPortable } from './portable.ts';
import { mountFeedback } from './feedback-actions.ts';
import { mountProgress } from './progress-view.ts';
import { mountQuarantine } from './quarantine-panel.ts';
import { mountRelatedPassages } from './related-passages.ts';
import { SampleSeeder, SAMPLE_VECTORS_BASE, sampleDeclined, seedState, setSampleDeclined, setSeedState } from './sample.ts';
import { mountSearch } from './search-panel.ts';
import { mountStorageView } from './storage-view.ts';
import { mountStorageNotice } from './storage-notice.ts';
import { registerServiceWorker } from './sw-register.ts';
import { mountTheme } from './theme.ts';
// Learn RCP's styles load with the page (6 KB), so the area does not restyle when its lazy tools arrive.
import './learn/learn.css';
import { count } from './format.ts';

mountTheme();
const areas = mountAreas();

const status = byId('status');
const stats = byId('index-stats');
const libraryError = byId('library-error');

// Before anything is awaited: Enter in the search box never submits (navigates), and a query typed
// while the engine starts is kept; the search panel runs it once it is mounted.
byId<HTMLFormElement>('search-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  areas.show('search');
});
// Search first: typing a query anywhere shows the results.
byId('q').addEventListener('input', () => areas.show('search'));
const early = () => {
  if (byId<HTMLInputElement>('q').value.trim()) byId('search-status').textContent = 'The engine is starting; your search runs as soon as it is ready.';
};
byId('q').addEventListener('input', early);

const log = new FrameLog();
/** Lets the browser paint and handle input between mounting groups of panels (no one long task). */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// The playground is one consumer of the library: the same `createInPageEngine` an embedding app uses.
const clientInfo = { name: 'rcp-playground', version: '0.2.0' };
// ?bundle=URL: serve a static index bundle (read-only) instead of this browser's index.
const bundle = bundleParam();
const started = createInPageEngine({ vectorsBase: SAMPLE_VECTORS_BASE, bundle, client: { onFrame: (d, f) => log.add(d, f), clientInfo } }).then(async (engine) => {
  // Imports get a session of their own: a session orders every request after the writes sent
  // before it (read-your-writes), so a search on the page's session would wait for a whole import.
  const writer = await engine.openSession({ onFrame: (d, f) => log.add(d, f, 'import'), clientInfo: { ...clientInfo, name: 'rcp-playground-import' } });
  await writer.connect();
  return { client: engine, writer };
});
started.catch(() => undefined); // handled below, once awaited (not an unhandled rejection meanwhile)
// A first run seeds the sample corpus: its worker reads it while the engine starts, not after.
let samplePrefetch = !bundle && !sampleDeclined() && seedState() !== 'done' ? new SampleSeeder() : undefined;
// The workers are starting; the rest of the first open's work runs in tasks of its own, so the
// module's evaluation is not one long task (Lighthouse counts what exceeds 50 ms at 4× slowdown).
await nextTask();
registerServiceWorker();
mountInspector(log);
mountBundle(bundle);
const watch = mountEngineWatch();
const { client, writer } = await started.catch((e: unknown) => {
  status.replaceChildren(errorView(e, 'Could not start the engine'));
  watch.failed(e);
  throw e;
});
Object.assign(window, { rcpClient: client });
// The worker's heartbeat lets the watch tell a busy engine from a gone one.
client.control.heartbeat().then((port) => watch.listen(port), () => undefined);
const init = client.serverInfo!;
status.textContent = `Connected to ${init.server.name} ${init.server.version} (${init._meta?.conformance ?? 'no conformance level'}).`;
byId('q').removeEventListener('input', early);

/** The text of a retrieve's query (a query can also be a structured object). */
const queryOf = (q: unknown): string | undefined => (typeof q === 'string' ? q : undefined);

// Search first: its panel (and a query typed while the engine started) before anything else.
const docPanel = mountDocPanel(client);
const openTarget = (t: HitTarget, opener: HTMLElement) => void docPanel.open(t, opener);
const engines = mountEngines(client);
await nextTask();
// Feedback goes on the page's session: later searches on it see a quarantine at once.
const markHeld = (docId: string, held: boolean) => markQuarantined(byId<HTMLOListElement>('hits'), docId, held);
const released = (docId: string) => (markHeld(docId, false), changed());
const feedback = mountFeedback(client, { query: () => queryOf(search.current()?.params.query), changed: () => changed(), quarantined: markHeld });
const search = mountSearch(client, engines.searcher, init, openTarget, (_hit, target) => feedback.controls(target));
await nextTask();
mountCapabilities(init);
// Learn RCP's tools (console, schema forms, conformance, quality, recordings, tour) are a chunk of
// their own, imported when that area is first shown (learn/learn-area.ts). Until they are mounted
// the area is inert (index.html): a click on Send must not submit its form natively.
let learnMounted = false;
const mountLearn = (area: string) => {
  if (area !== 'learn' || learnMounted) return;
  learnMounted = true;
  const learn = byId('area-learn');
  const usable = () => {
    learn.inert = false;
    learn.removeAttribute('aria-busy');
    learn.dataset.ready = '1';
  };
  import('./learn/learn-area.ts').then(
    (m) => (m.mountLearnArea({ client, init, log, changed: () => changed() }), usable()),
    (e: unknown) => (learn.prepend(errorView(e, 'Could not load the Learn RCP tools')), usable()),
  );
};
areas.onShow(mountLearn);
mountLearn(areas.current());
await nextTask();
const storage = mountStorageView();
void mountStorageNotice();
const progress = mountProgress();
const documents = mountDocumentsPanel(client, { open: (t, opener) => void docPanel.open(t, opener), changed: () => changed() });
const syncShown = (area: string) => documents.setShown(area === 'documents');
areas.onShow(syncShown);
syncShown(areas.current());
// Each group below is a few ms of main-thread work: one task each, so that none is long (Lighthouse
// counts every task over 50 ms at its 4× slowdown, i.e. over ~12 ms here).
await nextTask();
const importer = mountImport(writer, progress, () => changed(), () => areas.show('import', true));
mountPortable({ reader: client, writer, progress, results: () => search.current(), changed: () => changed() });
await nextTask();
mountCorpusMap(client, () => search.current(), (docId, opener) => void docPanel.open({ docId, title: docId, text: '', spans: [] }, opener), mountCommunityLayer(client, openTarget));
const related = mountRelatedPassages(client, openTarget);
const docFeedback = mountDocFeedback(client, feedback, released);
docPanel.onOpen((t) => (related.show(t), docFeedback.show(t)));
docPanel.onClose(() => (related.hide(), docFeedback.hide()));
const quarantine = mountQuarantine(client, released);
await nextTask();

function describe(s: WorkerStatus): string {
  const parts = [s.ready ? `${count(s.documents)} documents · ${count(s.chunks)} passages indexed` : s.error ? `Index unavailable: ${s.error}` : 'Opening the index…'];
  if (s.model) {
    const m = s.model;
    const state = m.state === 'loading' ? `loading${m.progress !== undefined ? ` ${Math.round(m.progress * 100)}%` : ''}` : m.state;
    parts.push(`model ${m.name}: ${state}${m.device ? ` on ${m.device}` : ''}`);
  }
  return parts.join(' · ');
}

await nextTask();
// The built-in models are read once (a manifest and a HEAD request each) for the picker and the advice.
const builtInModels = client.control.models();
const modelControl = { models: () => builtInModels, chooseModel: (name: string | undefined) => client.control.chooseModel(name), languages: () => client.control.languages() };
const picker = mountModelPicker(byId('model-picker'), modelControl, (texts) => client.request('embed', { inputs: texts, kind: 'document' }));
const indexLoss = mountIndexLoss(byId('index-loss'), { dismiss: () => client.control.dismissIndexLoss(), showImport: () => areas.show('import', true) });
const advice = mountModelAdvice(byId('model-advice'), modelControl, () => areas.show('models', true));
let adviceVersion: string | undefined;
let adviceAt = -Infinity;
let seenVersion: string | undefined;
async function updateStats(): Promise<WorkerStatus> {
  const s = await watch.status(() => client.status());
  stats.textContent = describe(s);
  picker.update(s);
  indexLoss.update(s.indexLoss, s.indexWarning, s.indexRestored);
  if (s.ready) search.setEmpty(s.documents === 0);
  // The index's languages are counted per version, over every live document: at most every 10 s
  // while an import commits batch after batch.
  if (s.ready && s.indexVersion !== adviceVersion && performance.now() - adviceAt > 10_000) {
    adviceVersion = s.indexVersion;
    adviceAt = performance.now();
    void advice.refresh().catch(() => undefined); // advice is optional
  }
  // The index moved without this page writing (another tab): refresh what shows it.
  if (seenVersion !== undefined && s.indexVersion !== seenVersion) changed();
  seenVersion = s.indexVersion;
  return s;
}

/**
 * The index changed: refresh counts, list, storage and the current results — coalesced, and at
 * most once a second while an import or the seeding runs (each batch commits and says so).
 */
const refreshShown = changeThrottle(
  () => {
    void updateStats();
    void documents.refresh();
    void storage.refresh();
    void quarantine.refresh();
    docFeedback.refresh();
    search.refresh(!progress.busy()); // while an import runs, results stay put (see SearchPanel.refresh)
  },
  { quietMs: 50, busyMs: 1000, busy: () => progress.busy() },
);
const changed = (): void => {
  // A query typed at first open waits for documents: each commit of the seeding answers it, not one a second.
  if (search.waiting()) search.refresh(false);
  refreshShown();
};

/** Adds the sample corpus; `resume` skips documents already in the index (a seed cut short by a reload). */
async function loadSample(resume = false): Promise<void> {
  libraryError.replaceChildren();
  setSampleDeclined(false);
  setSeedState('seeding');
  const seeder = samplePrefetch ?? new SampleSeeder();
  samplePrefetch = undefined;
  let job: ReturnType<typeof importer.track> | undefined;
  try {
    const skip = resume && hasInpage(client) ? [...(await allDocumentIds())] : [];
    // The seeder's own session: the documents go from its worker to the engine's, not through this page.
    const port = await client.control.connect();
    const result = await seeder.seed(port, skip, { ...clientInfo, name: 'rcp-playground-sample' }, (total) => {
      if (total === 0) return undefined;
      job = importer.track(`Loading the sample corpus (${total} public-domain documents)`, total);
      return { ...job, onFrame: (d, f) => log.add(d, f, 'sample'), onLargeFrame: (d, f) => log.addLarge(d, f, 'sample') };
    });
    job?.finish({ result });
    if (!result.cancelled) setSeedState('done');
  } catch (e) {
    if (job) job.finish({ error: e });
    else libraryError.replaceChildren(errorView(e, 'Could not load the sample corpus'));
  } finally {
    seeder.terminate(); // also when listing the ids or opening the port failed before the seed began
  }
}

/** Every id in the index, read a page (the largest the server allows) at a time. */
async function allDocumentIds(): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const page = await listDocuments(client, { offset, limit: 1000 });
    for (const d of page.documents) ids.add(d.id);
    if (page.documents.length === 0 || offset + page.documents.length >= page.total) return ids;
  }
}

const clearBtn = byId<HTMLButtonElement>('clear-index');
const clearConfirm = byId<HTMLButtonElement>('clear-confirm');
const clearCancel = byId<HTMLButtonElement>('clear-cancel');
clearBtn.hidden = !hasInpage(client) || bundle !== undefined;
const showConfirm = (on: boolean) => {
  byId('clear-confirm-group').hidden = !on;
  clearBtn.hidden = on;
  (on ? clearCancel : clearBtn).focus();
};
clearBtn.addEventListener('click', () => showConfirm(true));
clearCancel.addEventListener('click', () => showConfirm(false));
clearConfirm.addEventListener('click', async () => {
  showConfirm(false);
  libraryError.replaceChildren();
  try {
    const r = await clearIndex(client);
    setSampleDeclined(true);
    setSeedState(undefined);
    byId('progress-done').textContent = `Cleared the index (${r.deleted} documents deleted).`;
  } catch (e) {
    libraryError.replaceChildren(errorView(e, 'Could not clear the index'));
  }
  changed();
});
for (const b of document.querySelectorAll<HTMLButtonElement>('[data-action="load-sample"]')) b.addEventListener('click', () => void loadSample());

// Status every few seconds from now on (also while the index opens: a worker that dies then is noticed).
setInterval(() => document.visibilityState === 'visible' && void updateStats().catch(() => undefined), 3000);
// First run: wait for the index to open, then seed the sample corpus into an empty index.
let s = await updateStats();
for (let i = 0; !s.ready && !s.error && i < 200; i++) {
  await new Promise((r) => setTimeout(r, 100));
  s = await updateStats();
}
if (bundle || s.indexLoss || s.indexWarning) {
  // Read-only, or a lost (or uncheckable) index: nothing is seeded or resumed (the person decides, with the loss in view).
} else if (s.ready && s.documents === 0 && !sampleDeclined()) void loadSample();
else if (s.ready && seedState() === 'seeding') void loadSample(true);
// Taken by loadSample above, or not needed.
samplePrefetch?.terminate();
samplePrefetch = undefined;
