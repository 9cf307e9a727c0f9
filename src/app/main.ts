/**
 * The playground's composition root: boots the engine worker, opens the page's own RCP session
 * (every frame goes to the inspector), mounts each panel and seeds the sample corpus on first run.
 * Each panel lives in its own module; this file only wires them together.
 */
import { createInPageEngine } from '../client/in-page-engine.ts';
import { clearIndex, hasInpage, listDocuments } from '../client/inpage.ts';
import type { WorkerStatus } from '../protocol/control.ts';
import { mountCapabilities } from './capabilities-panel.ts';
import { mountCorpusMap } from './corpus-map-view.ts';
import { mountDocPanel } from './doc-panel.ts';
import { mountDocumentsPanel } from './documents-panel.ts';
import { byId } from './dom.ts';
import { mountEngines } from './engines-panel.ts';
import { errorView } from './errors.ts';
import { FrameLog } from './frame-log.ts';
import { mountImport } from './import-panel.ts';
import { mountIndexLoss } from './index-loss-view.ts';
import { mountInspector } from './inspector.ts';
import { mountMethodForms } from './method-forms.ts';
import { mountModelPicker } from './model-picker.ts';
import { mountPortable } from './portable.ts';
import { mountProgress } from './progress-view.ts';
import { mountConsole } from './rpc-console.ts';
import { fetchSample, SAMPLE_VECTORS_BASE, sampleDeclined, seedState, setSampleDeclined, setSeedState } from './sample.ts';
import { mountSearch } from './search-panel.ts';
import { mountStorageView } from './storage-view.ts';
import { registerServiceWorker } from './sw-register.ts';

const status = byId('status');
const stats = byId('index-stats');
const libraryError = byId('library-error');

// Before anything is awaited: Enter in the search box never submits (navigates), and a query typed
// while the engine starts is kept; the search panel runs it once it is mounted.
byId<HTMLFormElement>('search-form').addEventListener('submit', (ev) => ev.preventDefault());
const early = () => {
  if (byId<HTMLInputElement>('q').value.trim()) byId('search-status').textContent = 'The engine is starting; your search runs as soon as it is ready.';
};
byId('q').addEventListener('input', early);

registerServiceWorker();
const log = new FrameLog();
mountInspector(log);

// The playground is one consumer of the library: the same front door an embedding app uses.
const clientInfo = { name: 'rcp-playground', version: '0.2.0' };
const started = createInPageEngine({ vectorsBase: SAMPLE_VECTORS_BASE, client: { onFrame: (d, f) => log.add(d, f), clientInfo } }).then(async (engine) => {
  // Imports get a session of their own: a session orders every request after the writes sent
  // before it (read-your-writes), so a search on the page's session would wait for a whole import.
  const writer = await engine.openSession({ onFrame: (d, f) => log.add(d, f, 'import'), clientInfo: { ...clientInfo, name: 'rcp-playground-import' } });
  await writer.connect();
  return { client: engine, writer };
});
const { client, writer } = await started.catch((e: unknown) => {
  status.replaceChildren(errorView(e, 'Could not start the engine'));
  throw e;
});
Object.assign(window, { rcpClient: client });
const init = client.serverInfo!;
status.textContent = `Connected to ${init.server.name} ${init.server.version} (${init._meta?.conformance ?? 'no conformance level'}).`;
byId('q').removeEventListener('input', early);

mountCapabilities(init);
const rcpConsole = mountConsole(() => client.control.connect(), init, log);
void mountMethodForms(init, (text) => rcpConsole.send(text));
const docPanel = mountDocPanel(client);
const engines = mountEngines(client);
const search = mountSearch(client, engines.searcher, init, (t, opener) => void docPanel.open(t, opener));
const storage = mountStorageView();
const progress = mountProgress();
const documents = mountDocumentsPanel(client, { open: (t, opener) => void docPanel.open(t, opener), changed: () => changed() });
const importer = mountImport(writer, progress, () => changed());
mountPortable({ reader: client, writer, progress, results: () => search.current(), changed: () => changed() });
mountCorpusMap(client, () => search.current(), (docId, opener) => void docPanel.open({ docId, title: docId, text: '', spans: [] }, opener));

function describe(s: WorkerStatus): string {
  const parts = [s.ready ? `${s.documents.toLocaleString('en')} documents · ${s.chunks.toLocaleString('en')} passages indexed` : s.error ? `Index unavailable: ${s.error}` : 'Opening the index…'];
  if (s.model) {
    const m = s.model;
    const state = m.state === 'loading' ? `loading${m.progress !== undefined ? ` ${Math.round(m.progress * 100)}%` : ''}` : m.state;
    parts.push(`model ${m.name}: ${state}${m.device ? ` on ${m.device}` : ''}`);
  }
  return parts.join(' · ');
}

const picker = mountModelPicker(byId('model-picker'), client.control);
const indexLoss = mountIndexLoss(byId('index-loss'), () => client.control.dismissIndexLoss());
let seenVersion: string | undefined;
async function updateStats(): Promise<WorkerStatus> {
  const s = await client.status();
  stats.textContent = describe(s);
  picker.update(s);
  indexLoss.update(s.indexLoss);
  if (s.ready) search.setEmpty(s.documents === 0);
  // The index moved without this page writing (another tab): refresh what shows it.
  if (seenVersion !== undefined && s.indexVersion !== seenVersion) changed();
  seenVersion = s.indexVersion;
  return s;
}

let pendingChange: ReturnType<typeof setTimeout> | undefined;
/** The index changed: refresh counts, list, storage and the current results (coalesced). */
function changed(): void {
  clearTimeout(pendingChange);
  pendingChange = setTimeout(() => {
    void updateStats();
    void documents.refresh();
    void storage.refresh();
    search.refresh(!progress.busy()); // while an import runs, results stay put (see SearchPanel.refresh)
  }, 50);
}

/** Adds the sample corpus; `resume` skips documents already in the index (a seed cut short by a reload). */
async function loadSample(resume = false): Promise<void> {
  libraryError.replaceChildren();
  setSampleDeclined(false);
  setSeedState('seeding');
  try {
    const corpus = await fetchSample();
    let docs = corpus.documents;
    if (resume && hasInpage(client)) {
      const present = new Set((await listDocuments(client, { offset: 0, limit: docs.length + 1000 })).documents.map((d) => d.id));
      docs = docs.filter((d) => !present.has(d.id ?? ''));
      if (docs.length === 0) return setSeedState('done');
    }
    const done = await importer.importDocs(docs, `Loading the sample corpus (${docs.length} public-domain documents)`);
    if (done && !done.cancelled) setSeedState('done');
  } catch (e) {
    libraryError.replaceChildren(errorView(e, 'Could not load the sample corpus'));
  }
}

const clearBtn = byId<HTMLButtonElement>('clear-index');
const clearConfirm = byId<HTMLButtonElement>('clear-confirm');
const clearCancel = byId<HTMLButtonElement>('clear-cancel');
clearBtn.hidden = !hasInpage(client);
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

// First run: wait for the index to open, then seed the sample corpus into an empty index.
let s = await updateStats();
for (let i = 0; !s.ready && !s.error && i < 200; i++) {
  await new Promise((r) => setTimeout(r, 100));
  s = await updateStats();
}
void documents.refresh();
// Never over a lost index: the person decides (re-import, load an export) with the loss in view.
if (s.ready && s.documents === 0 && !sampleDeclined() && !s.indexLoss) void loadSample();
else if (s.ready && seedState() === 'seeding' && !s.indexLoss) void loadSample(true);
setInterval(() => document.visibilityState === 'visible' && void updateStats(), 3000);
