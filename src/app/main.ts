/**
 * The playground (first cut): opens an RCP session to the worker, shows every frame, searches and
 * adds documents. Document text is always rendered with textContent, never as HTML.
 */
import { bootWorker } from '../client/boot.ts';
import { RcpError } from '../protocol/errors.ts';
import type { Hit } from '../protocol/types.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
const frames = $<HTMLOListElement>('frames');

function showFrame(direction: 'out' | 'in', frame: string): void {
  const li = document.createElement('li');
  li.className = `dir-${direction}`;
  li.textContent = `${new Date().toISOString().slice(11, 23)} ${frame}`;
  frames.append(li);
  while (frames.children.length > 500) frames.firstElementChild?.remove();
  li.scrollIntoView({ block: 'nearest' });
}

const worker = bootWorker();
const client = await worker.openClient({ onFrame: showFrame, clientInfo: { name: 'rcp-playground', version: '0.1.0' } });
const init = await client.connect();
status.textContent = `Connected to ${init.server.name} ${init.server.version} (${init._meta?.conformance ?? 'no level'}).`;

function renderHits(hits: Hit[]): void {
  const list = $<HTMLOListElement>('hits');
  list.replaceChildren(
    ...hits.map((h) => {
      const li = document.createElement('li');
      const title = document.createElement('span');
      title.className = 'hit-title';
      title.textContent = String(h.citation?.title ?? h.chunk?.docId ?? h.id);
      const score = document.createElement('span');
      score.className = 'hit-score';
      score.textContent = h.score.toFixed(3);
      const text = document.createElement('p');
      text.className = 'hit-text';
      text.textContent = (h.text ?? '').slice(0, 400);
      li.append(title, score, text);
      return li;
    }),
  );
  if (hits.length === 0) list.textContent = 'No results.';
}

function showError(e: unknown): void {
  status.textContent = e instanceof RcpError ? `${e.rawMessage} (RCP ${e.code})` : String(e);
  status.classList.add('error');
}

$<HTMLFormElement>('search-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const query = $<HTMLInputElement>('q').value.trim();
  if (!query) return;
  try {
    const k = Number($<HTMLInputElement>('k').value) || 5;
    const result = await client.request('retrieve', { query, k, includeText: true });
    renderHits(result.hits);
  } catch (e) {
    showError(e);
  }
});

$<HTMLFormElement>('add-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const text = $<HTMLTextAreaElement>('doc-text').value;
  const title = $<HTMLInputElement>('doc-title').value.trim();
  try {
    const r = await client.request('index/add', { documents: [{ text, meta: title ? { title } : {} }] });
    status.textContent = `Added ${r.ids.join(', ')}.`;
  } catch (e) {
    showError(e);
  }
});

Object.assign(window, { rcpClient: client });
