/**
 * Import: drag-and-drop, a file picker and a paste box. Files are parsed in the page (HTML in an
 * inert DOMParser document, PDFs by pdf.js, .docx by its XML) and added in batches with progress and
 * Cancel; a report then says what happened to every file.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import type { IndexDocument } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { plural } from './format.ts';
import { errorView } from './errors.ts';
import { ACCEPT, parseFile, parsePasted, type FileOutcome } from '../import/parse.ts';
import { ingest, type IngestOptions, type IngestResult } from './ingest.ts';
import type { ProgressView } from './progress-view.ts';

const STATUS_WORDS: Readonly<Record<Exclude<FileOutcome['status'], 'parsed'>, string>> = Object.freeze({
  empty: 'nothing to import',
  unsupported: 'unsupported',
  binary: 'refused (binary)',
  failed: 'failed',
});

/** How the dock counts a file that was not imported ("1 binary, refused; 1 empty"). */
const DOCK_WORDS: Readonly<Record<Exclude<FileOutcome['status'], 'parsed'>, string>> = Object.freeze({
  binary: 'binary, refused',
  empty: 'empty',
  unsupported: 'unsupported',
  failed: 'failed',
});

/**
 * The dock's outcome of a file import, counting every file, not only the documents added. When
 * every file was imported: "Imported 7 documents (21 passages) from 5 files."; otherwise
 * "1 of 3 files imported (1 document, 12 passages): 1 binary, refused; 1 empty." (the reasons in
 * a fixed order; the Import area's report names each file).
 */
export function filesOutcome(outcomes: readonly FileOutcome[], result: IngestResult | undefined): string {
  // (A cancelled import keeps the progress view's own outcome: how many documents were added.)
  const files = plural(outcomes.length, 'file');
  const parsed = outcomes.filter((o) => o.status === 'parsed').length;
  const imported = result ? parsed : 0;
  const added = result ? `${plural(result.added, 'document')}, ${plural(result.chunks, 'passage')}` : '';
  if (imported === outcomes.length) return `Imported ${plural(result!.added, 'document')} (${plural(result!.chunks, 'passage')})${outcomes.length > 1 ? ` from ${files}` : ''}.`;
  const why = (Object.keys(DOCK_WORDS) as (keyof typeof DOCK_WORDS)[]).flatMap((status) => {
    const n = outcomes.filter((o) => o.status === status).length;
    return n ? [`${n} ${DOCK_WORDS[status]}`] : [];
  });
  return `${imported} of ${files} imported${imported ? ` (${added})` : ''}${why.length ? `: ${why.join('; ')}` : ''}.`;
}

/** One import under way, with the progress bar and Cancel: what its batches report, and how it ended. */
export interface ImportTracker extends Required<IngestOptions> {
  /** Closes the progress bar with what was added, or shows why it failed. */
  finish(outcome: { result: IngestResult } | { error: unknown }): void;
}

export interface Importer {
  importDocs(docs: IndexDocument[], label: string): Promise<IngestResult | undefined>;
  /** An import run elsewhere (the sample seeder's worker) shown like one of the page's. */
  track(label: string, total: number): ImportTracker;
}

/**
 * `openImportArea` brings the Import area (its report) on screen (the dock's outcome links to it: a file
 * dropped on another area was refused there, and its reason is only in the report).
 */
export function mountImport(client: RcpClient, progress: ProgressView, changed: () => void, openImportArea: () => void = () => undefined): Importer {
  const drop = byId('drop-zone');
  const input = byId<HTMLInputElement>('file-input');
  const problem = byId('import-error');
  const progressDone = byId('progress-done');
  input.accept = ACCEPT;

  const track = (label: string, total: number): ImportTracker => {
    problem.replaceChildren();
    const signal = progress.start(label);
    return {
      signal,
      onProgress: (p) => progress.update(p),
      onBatch: changed,
      finish(outcome) {
        if ('result' in outcome) {
          const r = outcome.result;
          progress.finish(r.cancelled ? `Import cancelled: ${r.added} of ${plural(total, 'document')} were added.` : `Imported ${plural(r.added, 'document')} (${plural(r.chunks, 'passage')}).`);
        } else {
          progress.finish('');
          problem.replaceChildren(errorView(outcome.error, 'Import failed'));
        }
        changed();
      },
    };
  };

  /** Adds `docs` with progress; resolves with what was added (undefined when it failed). */
  const importDocs = async (docs: IndexDocument[], label: string): Promise<IngestResult | undefined> => {
    problem.replaceChildren();
    if (docs.length === 0) {
      problem.replaceChildren(errorView(new Error('Nothing to import: no text found.')));
      return undefined;
    }
    const job = track(label, docs.length);
    try {
      const result = await ingest(client, docs, job);
      job.finish({ result });
      return result;
    } catch (error) {
      job.finish({ error });
      return undefined;
    }
  };

  const report = byId('import-report');
  const openReport = () => {
    openImportArea();
    report.tabIndex = -1;
    report.focus();
  };
  /** One line per file: imported (documents), empty, unsupported, binary (refused) or failed, with the reason. */
  const showReport = (outcomes: FileOutcome[], imported: boolean, passages: number) => {
    const rows = outcomes.map((o) => {
      const text =
        o.status === 'parsed'
          ? imported
            ? `${o.name}: imported — ${plural(o.docs.length, 'document')}`
            : `${o.name}: not imported (the import stopped)`
          : `${o.name}: ${STATUS_WORDS[o.status]} — ${o.reason}`;
      return el('li', { class: o.status === 'parsed' ? 'imported' : o.status === 'binary' ? 'refused' : o.status }, text);
    });
    const parsed = outcomes.filter((o) => o.status === 'parsed').length;
    report.replaceChildren(
      // A stopped import imported none of them: the line must not count the parsed files as imported.
      el('p', {}, `${plural(outcomes.length, 'file')}: ${imported ? parsed : 0} imported${imported && parsed > 0 ? ` (${plural(passages, 'passage')})` : ''}, ${outcomes.length - (imported ? parsed : 0)} not.`),
      el('ul', { class: 'import-report' }, ...rows),
    );
  };

  const importFiles = async (files: File[]) => {
    if (files.length === 0) return;
    problem.replaceChildren();
    report.replaceChildren(`Reading ${plural(files.length, 'file')}…`);
    const outcomes: FileOutcome[] = [];
    for (const f of files) outcomes.push(await parseFile(f));
    const docs = outcomes.flatMap((o) => (o.status === 'parsed' ? o.docs : []));
    let result: IngestResult | undefined;
    if (docs.length > 0) result = await importDocs(docs, `Importing ${files.length === 1 ? files[0].name : `${files.length} files`}`);
    showReport(outcomes, result !== undefined && !result.cancelled, result?.chunks ?? 0);
    // The dock counts every file, and links to the report that names them (an import that failed
    // says why in the Import area already; a cancelled one keeps its count of documents added).
    if (docs.length === 0 || (result && !result.cancelled)) {
      const link = el('a', { attrs: { href: '#import-report' }, on: { click: (ev: Event) => (ev.preventDefault(), openReport()) } }, 'See the import report');
      progressDone.replaceChildren(filesOutcome(outcomes, result), ' ', link);
    }
  };

  input.addEventListener('change', () => {
    void importFiles([...(input.files ?? [])]).finally(() => {
      input.value = '';
    });
  });
  drop.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('dragging');
    void importFiles([...(ev.dataTransfer?.files ?? [])]);
  });
  // Dropping a file anywhere else must not navigate away from the playground.
  window.addEventListener('dragover', (ev) => ev.preventDefault());
  // Files dropped elsewhere (on the Search area, say) are imported as if dropped on the zone.
  window.addEventListener('drop', (ev) => {
    ev.preventDefault();
    if (!(ev.target instanceof Node && drop.contains(ev.target)) && ev.dataTransfer?.files.length) void importFiles([...ev.dataTransfer.files]);
  });

  byId<HTMLFormElement>('paste-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = byId<HTMLTextAreaElement>('paste-text');
    const title = byId<HTMLInputElement>('paste-title');
    void importDocs(parsePasted(text.value, title.value), 'Adding pasted text').then(() => {
      text.value = '';
      title.value = '';
    });
  });
  return { importDocs, track };
}
