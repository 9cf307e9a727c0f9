/**
 * The whole integration: start the engine, add documents, search. The index lives in this
 * browser's IndexedDB under the database name given here; nothing leaves the page's origin.
 */
import { createInPageEngine, type Hit } from 'rcp-in-page';

const status = document.querySelector<HTMLParagraphElement>('#status')!;
const list = document.querySelector<HTMLOListElement>('#hits')!;
const form = document.querySelector<HTMLFormElement>('#search')!;
const q = document.querySelector<HTMLInputElement>('#q')!;

// `models: false`: sparse (BM25) retrieval only; serve a models folder and set `modelBase` for dense search.
const engine = await createInPageEngine({ database: 'example-app', models: false });

await engine.request('index/add', {
  documents: [
    { id: 'moby', text: 'Call me Ishmael. The white whale haunted Captain Ahab across every ocean.', meta: { title: 'Moby-Dick' } },
    { id: 'walden', text: 'I went to the woods because I wished to live deliberately, beside Walden Pond.', meta: { title: 'Walden' } },
    { id: 'origin', text: 'Natural selection acts solely by the preservation of profitable variations.', meta: { title: 'On the Origin of Species' } },
  ],
});

function show(hits: Hit[]): void {
  list.replaceChildren(
    ...hits.map((h) => {
      const li = document.createElement('li');
      li.dataset.id = String(h.chunk?.docId ?? h.id);
      li.textContent = `${String(h.meta?.title ?? h.id)} (${h.score.toFixed(3)}): ${h.text ?? ''}`;
      return li;
    }),
  );
}

async function search(): Promise<void> {
  const { hits } = await engine.request('retrieve', { query: q.value, k: 3, includeText: true });
  show(hits);
  status.textContent = `${hits.length} result${hits.length === 1 ? '' : 's'} for “${q.value}” from ${engine.serverInfo?.server.name}.`;
}

form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  void search();
});
await search();
