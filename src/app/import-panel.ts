/**
 * Import: drag-and-drop, a file picker and a paste box. Files are parsed in the page (HTML in an
 * inert DOMParser document, PDFs by pdf.js) and added in batches with progress and Cancel.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import type { IndexDocument } from '../protocol/types.ts';
import { byId } from './dom.ts';
import { errorView } from './errors.ts';
import { ACCEPT, parseFile, parsePasted } from './import/parse.ts';
import { ingest } from './ingest.ts';
import type { ProgressView } from './progress-view.ts';

export function mountImport(client: RcpClient, progress: ProgressView, changed: () => void): { importDocs(docs: IndexDocument[], label: string): Promise<boolean> } {
  const drop = byId('drop-zone');
  const input = byId<HTMLInputElement>('file-input');
  const problem = byId('import-error');
  input.accept = ACCEPT;

  /** Adds `docs` with progress; resolves true when every document was added. */
  const importDocs = async (docs: IndexDocument[], label: string): Promise<boolean> => {
    problem.replaceChildren();
    if (docs.length === 0) {
      problem.replaceChildren(errorView(new Error('Nothing to import: no text found.')));
      return false;
    }
    let complete = false;
    const signal = progress.start(label);
    try {
      const r = await ingest(client, docs, { signal, onProgress: (p) => progress.update(p), onBatch: changed });
      complete = !r.cancelled;
      progress.finish(r.cancelled ? `Import cancelled: ${r.added} of ${docs.length} documents were added.` : `Imported ${r.added} document${r.added === 1 ? '' : 's'} (${r.chunks} passages).`);
    } catch (e) {
      progress.finish('');
      problem.replaceChildren(errorView(e, 'Import failed'));
    }
    changed();
    return complete;
  };

  const importFiles = async (files: File[]) => {
    if (files.length === 0) return;
    problem.replaceChildren();
    const docs: IndexDocument[] = [];
    const failures: string[] = [];
    for (const f of files) {
      try {
        docs.push(...(await parseFile(f)));
      } catch (e) {
        failures.push(`${f.name}: ${(e as Error).message}`);
      }
    }
    if (docs.length > 0) await importDocs(docs, `Importing ${files.length === 1 ? files[0].name : `${files.length} files`}`);
    if (failures.length > 0) problem.append(errorView(new Error(failures.join(' ')), 'Some files could not be read'));
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
  window.addEventListener('drop', (ev) => ev.preventDefault());

  byId<HTMLFormElement>('paste-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = byId<HTMLTextAreaElement>('paste-text');
    const title = byId<HTMLInputElement>('paste-title');
    void importDocs(parsePasted(text.value, title.value), 'Adding pasted text').then(() => {
      text.value = '';
      title.value = '';
    });
  });
  return { importDocs };
}
