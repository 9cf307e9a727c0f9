/**
 * "Compare retrieval quality" (spec Appendix F) in the page: a BEIR collection (a development set
 * or files the user picks), run through a fresh engine of ours in several configurations, the
 * engines people would pick instead (MiniSearch, Orama, Orama hybrid with our model's vectors) and
 * any remote RCP engine; nDCG@10, Recall@50 and MRR@10 side by side, and per-query differences
 * between any two runs. `npm run eval` computes the same numbers (src/eval).
 */
import type { BeirCollection } from '../../eval/beir.ts';
import { judgedQueries } from '../../eval/beir.ts';
import { PEER_LABELS, PEERS, type PeerName } from '../../eval/engines.ts';
import { parseRunConfigs, queryDiffs, type ConfigRun } from '../../eval/harness.ts';
import { downloadFile, el } from '../dom.ts';
import { collectionFromFiles, exampleCollection, exampleSets } from './beir-input.ts';
import { connectAllowed, pageConnectSources } from './connect-policy.ts';
import { runQuality, type EngineChoice, type FreshEngine } from './quality-run.ts';
import { specLink } from './spec-view.ts';
import './learn.css';
import { count } from '../format.ts';

export interface QualityDeps {
  fresh(): Promise<FreshEngine>;
}

/** Our configurations offered, as `npm run eval -- --grid` names them. */
const CONFIGS: [string, string][] = [
  ['sparse', 'sparse (BM25)'],
  ['dense', 'dense'],
  ['hybrid', 'hybrid (default fusion)'],
  ['hybrid:rrf', 'hybrid, RRF'],
  ['hybrid:convex', 'hybrid, convex'],
];
const DEFAULT_CONFIGS = new Set(['sparse', 'dense', 'hybrid']);
const fmt = (x: number) => x.toFixed(4);
const label = (r: ConfigRun) => (r.engine === 'rcp-in-page' ? `rcp-in-page ${r.config.label}` : PEERS.includes(r.engine as PeerName) ? PEER_LABELS[r.engine as PeerName] : `${r.engine} ${r.config.label}`);

function checkbox(id: string, text: string, checked: boolean): { box: HTMLInputElement; row: HTMLElement } {
  const box = el('input', { id, attrs: { type: 'checkbox', checked } });
  return { box, row: el('div', {}, box, ' ', el('label', { attrs: { for: id } }, text)) };
}

export function mountQuality(container: HTMLElement, deps: QualityDeps): void {
  const examples = exampleSets();
  const source = el('select', { id: 'q-source' }, ...examples.map((n) => el('option', { attrs: { value: n } }, n.toUpperCase())), el('option', { attrs: { value: 'files' } }, 'files I pick…'));
  const files = el('input', { id: 'q-files', attrs: { type: 'file', multiple: true, accept: '.jsonl,.tsv,.json' } });
  const folder = el('input', { id: 'q-folder', attrs: { type: 'file', webkitdirectory: true } });
  const picker = el('div', { class: 'q-picker' }, el('label', { attrs: { for: 'q-files' } }, 'Files (corpus.jsonl, queries.jsonl, qrels .tsv)'), ' ', files, ' ', el('label', { attrs: { for: 'q-folder' } }, 'or a folder'), ' ', folder);
  const collectionNote = el('p', { class: 'muted', attrs: { role: 'status', 'aria-live': 'polite' } });
  const ours = checkbox('q-ours', 'rcp-in-page: a fresh engine of ours (its own worker and database, deleted after the run)', true);
  const configBoxes = CONFIGS.map(([value, text]) => ({ value, ...checkbox(`q-cfg-${value.replace(':', '-')}`, text, DEFAULT_CONFIGS.has(value)) }));
  const peerBoxes = PEERS.map((name) => ({ name, ...checkbox(`q-peer-${name}`, PEER_LABELS[name], true) }));
  const remote = checkbox('q-remote', 'A remote RCP engine over HTTP that already holds this collection (same document ids), queried with the configurations above', false);
  const remoteUrl = el('input', { id: 'q-remote-url', attrs: { type: 'url', placeholder: 'http://127.0.0.1:8787/rcp', autocomplete: 'off' } });
  const remoteToken = el('input', { id: 'q-remote-token', attrs: { type: 'password', autocomplete: 'off', placeholder: 'optional bearer token' } });
  const run = el('button', { attrs: { type: 'submit' } }, 'Run the comparison');
  const cancel = el('button', { class: 'small', attrs: { type: 'button' } }, 'Cancel');
  cancel.hidden = true;
  const bar = el('progress', { attrs: { max: 1, value: 0, 'aria-label': 'Comparison progress' } });
  bar.hidden = true;
  const status = el('p', { attrs: { role: 'status', 'aria-live': 'polite' } });
  const error = el('div', { class: 'error', attrs: { role: 'alert' } });
  const tbody = el('tbody');
  const table = el('table', { class: 'q-table' }, el('caption', {}, 'Mean over the judged queries (', specLink('F'), ')'), el('thead', {}, el('tr', {}, ...['Engine and configuration', 'nDCG@10', 'Recall@50', 'MRR@10', 'ms / query', 'failed'].map((h) => el('th', { attrs: { scope: 'col' } }, h)))), tbody);
  const results = el('div', { class: 'q-results' }, el('div', { class: 'table-scroll' }, table));
  results.hidden = true;
  const save = el('button', { class: 'small', attrs: { type: 'button' } }, 'Download the results (JSON)');
  const pickA = el('select', { id: 'q-a' });
  const pickB = el('select', { id: 'q-b' });
  const diffs = el('div', { class: 'q-diffs' });
  const compare = el('section', { attrs: { 'aria-labelledby': 'q-diff-h' } }, el('h4', { id: 'q-diff-h' }, 'Per query'), el('p', {}, el('label', { attrs: { for: 'q-a' } }, 'Compare '), pickA, el('label', { attrs: { for: 'q-b' } }, ' with '), pickB), diffs);
  results.append(save, compare);

  container.append(
    el(
      'form',
      { class: 'q-form' },
      el('fieldset', {}, el('legend', {}, 'Collection (BEIR format)'), el('label', { attrs: { for: 'q-source' } }, 'Use '), source, picker, collectionNote),
      el('fieldset', {}, el('legend', {}, 'Engines'), ours.row, el('div', { class: 'q-configs' }, ...configBoxes.map((c) => c.row)), ...peerBoxes.map((p) => p.row), remote.row, el('div', { class: 'conf-remote' }, el('label', { attrs: { for: 'q-remote-url' } }, 'Base URL'), remoteUrl, el('label', { attrs: { for: 'q-remote-token' } }, 'Bearer token'), remoteToken)),
      el('div', { class: 'conf-actions' }, run, ' ', cancel),
    ),
    bar,
    status,
    error,
    results,
  );

  let collection: BeirCollection | undefined;
  let runs: ConfigRun[] = [];
  let abort: AbortController | undefined;

  const describeCollection = (c: BeirCollection) => `${c.name}: ${count(c.corpus.length)} documents, ${judgedQueries(c).length} judged queries.`;
  const load = async (): Promise<BeirCollection | undefined> => {
    error.replaceChildren();
    try {
      if (source.value !== 'files') collection = await exampleCollection(source.value);
      else {
        const picked = [...(files.files ?? []), ...(folder.files ?? [])];
        if (!picked.length) throw new Error('pick the collection files (or a folder) first');
        collection = await collectionFromFiles(picked);
      }
      collectionNote.textContent = describeCollection(collection);
      return collection;
    } catch (e) {
      collection = undefined;
      collectionNote.textContent = '';
      error.textContent = `Could not read the collection: ${e instanceof Error ? e.message : String(e)}`;
      return undefined;
    }
  };
  const syncPicker = () => (picker.hidden = source.value !== 'files');
  source.addEventListener('change', () => (syncPicker(), void load()));
  files.addEventListener('change', () => void load());
  folder.addEventListener('change', () => void load());
  syncPicker();
  if (!examples.length) collectionNote.textContent = 'This build carries no development collection: pick your files.';

  const addRow = (r: ConfigRun) => {
    tbody.append(
      el(
        'tr',
        { attrs: { 'data-engine': r.engine, 'data-config': r.config.label, 'data-ndcg10': r.mean.ndcg10, 'data-recall50': r.mean.recall50, 'data-mrr10': r.mean.mrr10 } },
        el('th', { attrs: { scope: 'row' } }, label(r)),
        el('td', {}, fmt(r.mean.ndcg10)),
        el('td', {}, fmt(r.mean.recall50)),
        el('td', {}, fmt(r.mean.mrr10)),
        el('td', {}, r.queryMs.toFixed(1)),
        el('td', { attrs: { title: r.error ?? '' } }, r.failed ? `${r.failed} (${r.error})` : '0'),
      ),
    );
    const opt = (i: number) => el('option', { attrs: { value: i } }, label(r));
    const i = runs.length - 1;
    pickA.append(opt(i));
    pickB.append(opt(i));
    if (runs.length === 2) pickB.value = '1';
    renderDiffs();
  };

  const topList = (r: ConfigRun, id: string) => {
    const q = r.queries.find((x) => x.id === id)!;
    const rel = collection?.qrels.get(id);
    return el('ol', { attrs: { 'aria-label': `${label(r)}: first 10 documents` } }, ...q.top.map((d) => el('li', { class: (rel?.get(d) ?? 0) > 0 ? 'q-relevant' : '' }, d, (rel?.get(d) ?? 0) > 0 ? ' ✓ relevant' : '')));
  };

  function renderDiffs(): void {
    const a = runs[Number(pickA.value)];
    const b = runs[Number(pickB.value)];
    if (!a || !b || a === b) {
      diffs.replaceChildren(el('p', { class: 'muted' }, 'Choose two different runs.'));
      return;
    }
    const rows = queryDiffs(a, b);
    const better = rows.filter((d) => d.delta > 0).length;
    const worse = rows.filter((d) => d.delta < 0).length;
    diffs.replaceChildren(
      el('p', {}, `${label(b)} is better on ${better} queries, worse on ${worse}, equal on ${rows.length - better - worse} (nDCG@10).`),
      el('ul', { class: 'q-diff-list' }, ...rows.slice(0, 200).map((d) => {
        const body = el('div', { class: 'q-tops' });
        return el(
          'li',
          { attrs: { 'data-query': d.id } },
          el('details', { on: { toggle: (ev) => (ev.currentTarget as HTMLDetailsElement).open && !body.firstChild && body.append(el('div', {}, el('strong', {}, label(a)), topList(a, d.id)), el('div', {}, el('strong', {}, label(b)), topList(b, d.id))) } }, el('summary', {}, `${d.delta > 0 ? '+' : ''}${fmt(d.delta)}  `, el('span', { attrs: { dir: 'auto' } }, d.query.slice(0, 140)), ` (${fmt(d.a.ndcg10)} → ${fmt(d.b.ndcg10)})`), body),
        );
      })),
    );
    if (rows.length > 200) diffs.append(el('p', { class: 'muted' }, `The 200 largest changes of ${rows.length} are shown; the JSON has them all.`));
  }
  pickA.addEventListener('change', renderDiffs);
  pickB.addEventListener('change', renderDiffs);

  save.addEventListener('click', () => {
    const body = JSON.stringify({ collection: collection?.name, runs: runs.map((r) => ({ engine: r.engine, config: r.config, mean: r.mean, queryMs: r.queryMs, failed: r.failed, queries: r.queries })) }, null, 1);
    downloadFile(`rcp-quality-${collection?.name ?? 'run'}.json`, 'application/json', [body]);
  });
  cancel.addEventListener('click', () => abort?.abort(new Error('cancelled')));

  const choices = (): EngineChoice[] | string => {
    const configs = parseRunConfigs(configBoxes.filter((c) => c.box.checked).map((c) => c.value).join(','));
    const out: EngineChoice[] = [];
    if (ours.box.checked && configs.length) out.push({ kind: 'fresh', configs });
    for (const p of peerBoxes) if (p.box.checked) out.push({ kind: 'peer', name: p.name });
    if (remote.box.checked) {
      const u = remoteUrl.value.trim();
      if (!/^https?:\/\/.+/.test(u)) return 'Enter the base URL of the remote RCP engine.';
      if (!connectAllowed(u, pageConnectSources(), location.origin)) return `This build's Content-Security-Policy does not let the page reach ${new URL(u).origin}: loopback addresses are allowed, others only when listed in RCP_REMOTE_ENGINES at build time.`;
      if (!configs.length) return 'Choose at least one configuration for the remote engine.';
      out.push({ kind: 'remote', url: u, token: remoteToken.value || undefined, configs });
    }
    return out.length ? out : 'Choose at least one engine.';
  };

  container.querySelector('form')!.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void (async () => {
      const engines = choices();
      if (typeof engines === 'string') {
        error.textContent = engines;
        return;
      }
      const c = collection ?? (await load());
      if (!c) return;
      abort = new AbortController();
      runs = [];
      tbody.replaceChildren();
      pickA.replaceChildren();
      pickB.replaceChildren();
      diffs.replaceChildren();
      error.replaceChildren();
      run.disabled = true;
      cancel.hidden = false;
      bar.hidden = false;
      const t0 = performance.now();
      try {
        await runQuality(c, engines, deps, {
          stage: (text, done, total) => {
            status.textContent = done !== undefined && total ? `${text}: ${count(done)} of ${count(total)}` : text;
            if (done !== undefined && total) bar.value = done / total;
            else bar.removeAttribute('value');
          },
          result: (r) => {
            runs.push(r);
            results.hidden = false;
            addRow(r);
          },
        }, abort.signal);
        status.textContent = `Done: ${runs.length} runs over ${describeCollection(c)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`;
      } catch (e) {
        status.textContent = '';
        error.textContent = abort.signal.aborted ? 'Cancelled.' : `The comparison stopped: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        run.disabled = false;
        cancel.hidden = true;
        bar.hidden = true;
      }
    })();
  });
}
