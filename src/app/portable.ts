/**
 * "Your data is yours": the whole index as one portable file and back, and the current results as
 * JSON or NDJSON. The index file is NDJSON: a header line, then one document per line with its
 * text, meta, chunk ranges and each chunk's vector (f32-base64) tagged, in the header, with the
 * model that made them. Importing it is an upsert by id; the engine reuses the vectors only when
 * they come from the model running now, and embeds again otherwise. Pages travel through
 * `x-inpage/export` and `x-inpage/import`, with progress and Cancel.
 */
import { exportPage, hasInpage, importPage, type InpageExportDocument, type InpageModelIdentity } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import type { RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { byId, downloadFile } from './dom.ts';
import { errorView } from './errors.ts';
import { plural } from './format.ts';
import type { ProgressView } from './progress-view.ts';

export const INDEX_FORMAT = 'rcp-inpage-index';
const EXPORT_PAGE = 20;
const IMPORT_BATCH = 20;

export interface IndexFileHeader {
  format: typeof INDEX_FORMAT;
  version: 1;
  documents: number;
  /** The model the vectors come from; absent when the engine has none. */
  model?: InpageModelIdentity;
  encoding: 'f32-base64';
  exportedAt: string;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

/** The lines of a file, read as a stream (a large export is never one string in memory). */
async function* lines(file: File): AsyncGenerator<string> {
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += value;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const l of parts) if (l.trim()) yield l;
  }
  if (rest.trim()) yield rest;
}

export interface PortableOptions {
  /** The page's session (reads). */
  reader: RcpClient;
  /** The import session (writes). */
  writer: RcpClient;
  progress: ProgressView;
  /** The results shown now, for "export results". */
  results: () => { params: RetrieveParams; result: RetrieveResult } | undefined;
  changed: () => void;
}

export function mountPortable(o: PortableOptions): void {
  const box = byId('portable');
  const status = byId('portable-status');
  const fileInput = byId<HTMLInputElement>('index-file');
  if (!hasInpage(o.reader)) {
    byId('portable-index').hidden = true; // results can still be exported
  }

  byId('export-index').addEventListener('click', () => void exportIndex());
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    fileInput.value = '';
    if (file) void importIndex(file);
  });
  for (const format of ['json', 'ndjson'] as const) byId(`export-results-${format}`).addEventListener('click', () => exportResults(format));

  async function exportIndex(): Promise<void> {
    status.replaceChildren();
    const signal = o.progress.start('Exporting the index');
    const parts: string[] = [];
    let header: IndexFileHeader | undefined;
    let done = 0;
    try {
      for (let offset: number | undefined = 0; offset !== undefined; ) {
        const page = await exportPage(o.reader, { offset, limit: EXPORT_PAGE, vectors: true }, { signal });
        header ??= { format: INDEX_FORMAT, version: 1, documents: page.total, model: page.model, encoding: 'f32-base64', exportedAt: new Date().toISOString() };
        for (const d of page.documents) parts.push(`${JSON.stringify(d)}\n`);
        done += page.documents.length;
        o.progress.update({ done, total: page.total, fraction: page.total ? done / page.total : 1 });
        offset = page.next;
      }
      const h = header ?? { format: INDEX_FORMAT, version: 1, documents: 0, encoding: 'f32-base64', exportedAt: new Date().toISOString() };
      h.documents = done; // documents deleted during the export are not in the file
      downloadFile(`rcp-index-${stamp()}.ndjson`, 'application/x-ndjson', [`${JSON.stringify(h)}\n`, ...parts]);
      o.progress.finish(`Exported ${plural(done, 'document')}${h.model ? ` with vectors from ${h.model.identity}` : ''}.`);
    } catch (e) {
      o.progress.finish('');
      status.replaceChildren(errorView(e, signal.aborted ? 'Export cancelled' : 'Could not export the index'));
    }
  }

  async function importIndex(file: File): Promise<void> {
    status.replaceChildren();
    const signal = o.progress.start(`Importing the index file ${file.name}`);
    let imported = 0;
    let chunks = 0;
    let reused = 0;
    try {
      const it = lines(file);
      const first = await it.next();
      const header = first.done ? undefined : (JSON.parse(first.value) as Partial<IndexFileHeader>);
      if (header?.format !== INDEX_FORMAT || header.version !== 1) throw new Error(`${file.name} is not an index file exported by this playground (its first line must be a "${INDEX_FORMAT}" header).`);
      const total = typeof header.documents === 'number' ? header.documents : 0;
      let batch: InpageExportDocument[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const r = await importPage(o.writer, batch, header.model, { signal });
        imported += r.ids.length;
        chunks += r.chunks;
        reused += r.vectorsReused;
        batch = [];
        o.progress.update({ done: imported, total: Math.max(total, imported), fraction: total ? Math.min(1, imported / total) : 1 });
      };
      for await (const line of it) {
        batch.push(JSON.parse(line) as InpageExportDocument);
        if (batch.length >= IMPORT_BATCH) await flush();
      }
      await flush();
      const embedded = chunks - reused;
      o.progress.finish(
        `Imported ${plural(imported, 'document')} (${plural(chunks, 'passage')}): ${reused === chunks ? 'every vector reused' : `${plural(reused, 'vector')} reused, ${plural(embedded, 'passage')} embedded again${header.model ? ` (the file's vectors are from ${header.model.identity})` : ''}`}.`,
      );
    } catch (e) {
      o.progress.finish(imported ? `Imported ${plural(imported, 'document')} before stopping.` : '');
      status.replaceChildren(errorView(e, signal.aborted ? 'Import cancelled' : 'Could not import the index file'));
    } finally {
      o.changed();
    }
  }

  function exportResults(format: 'json' | 'ndjson'): void {
    const shown = o.results();
    if (!shown) {
      status.textContent = 'There are no results to export: search first.';
      return;
    }
    status.textContent = `Exported ${plural(shown.result.hits.length, 'result')} as ${format.toUpperCase()}.`;
    if (format === 'json') downloadFile(`rcp-results-${stamp()}.json`, 'application/json', [JSON.stringify({ request: shown.params, ...shown.result }, null, 2)]);
    else downloadFile(`rcp-results-${stamp()}.ndjson`, 'application/x-ndjson', shown.result.hits.map((h) => `${JSON.stringify(h)}\n`));
  }
  box.hidden = false;
}
