/**
 * Files and pasted text → documents for `index/add`. Supports .txt, .md, .html, .json (arrays of
 * {id,text,meta} or {title,text}, or {documents:[…]}), .jsonl (BEIR corpus lines {_id,title,text})
 * and .pdf (text layer). Ids are stable (derived from the file name or given ids) so re-importing
 * replaces instead of duplicating.
 */
import type { IndexDocument } from '../../protocol/types.ts';
import { htmlToText } from './html-text.ts';
import { fnv1a, slug } from './ids.ts';

export const ACCEPT = '.txt,.text,.md,.markdown,.html,.htm,.json,.jsonl,.ndjson,.pdf';

const stem = (name: string) => name.replace(/\.[^.]+$/, '');
const ext = (name: string) => (/\.([^.]+)$/.exec(name)?.[1] ?? '').toLowerCase();

/** Documents from one JSON value (one record or a list of records). */
function fromRecords(value: unknown, file: string): IndexDocument[] {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' && Array.isArray((value as { documents?: unknown }).documents) ? (value as { documents: unknown[] }).documents : [value];
  const out: IndexDocument[] = [];
  list.forEach((raw, i) => {
    if (typeof raw === 'string') {
      if (raw.trim()) out.push({ id: `${slug(stem(file))}-${i}`, text: raw, meta: { title: `${stem(file)} #${i + 1}`, source: 'import' } });
      return;
    }
    if (!raw || typeof raw !== 'object') return;
    const r = raw as Record<string, unknown>;
    const text = [r.text, r.body, r.content, r.contents].find((t): t is string => typeof t === 'string');
    if (text === undefined || !text.trim()) return;
    const given = [r.id, r._id, r.docid, r.doc_id].find((v) => typeof v === 'string' || typeof v === 'number');
    const meta: Record<string, unknown> = { source: 'import', ...(isPlain(r.meta) ? r.meta : {}), ...(isPlain(r.metadata) ? r.metadata : {}) };
    if (typeof r.title === 'string' && r.title) meta.title = r.title;
    if (meta.title === undefined) meta.title = given !== undefined ? String(given) : `${stem(file)} #${i + 1}`;
    out.push({ id: given !== undefined ? String(given) : `${slug(stem(file))}-${i}`, text, meta });
  });
  return out;
}

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function markdownTitle(text: string): string | undefined {
  return /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
}

/** Documents from text content of a named file (everything but PDF). Throws with a plain message on bad JSON. */
export function parseText(name: string, text: string): IndexDocument[] {
  const kind = ext(name);
  const base = { source: 'import', uri: `file:${name}` };
  const id = `file-${slug(name)}`;
  switch (kind) {
    case 'html':
    case 'htm': {
      const { title, text: body } = htmlToText(text);
      return body ? [{ id, text: body, meta: { ...base, title: title ?? stem(name), format: 'html' } }] : [];
    }
    case 'md':
    case 'markdown':
      return text.trim() ? [{ id, text, meta: { ...base, title: markdownTitle(text) ?? stem(name), format: 'markdown' } }] : [];
    case 'json':
      try {
        return fromRecords(JSON.parse(text), name);
      } catch (e) {
        throw new Error(`${name} is not valid JSON (${(e as Error).message}).`);
      }
    case 'jsonl':
    case 'ndjson': {
      const records: unknown[] = [];
      text.split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        try {
          records.push(JSON.parse(line));
        } catch {
          throw new Error(`${name}, line ${i + 1}, is not valid JSON.`);
        }
      });
      return fromRecords(records, name);
    }
    default:
      return text.trim() ? [{ id, text, meta: { ...base, title: stem(name), format: 'text' } }] : [];
  }
}

/** Documents from a File. PDF text is extracted with pdf.js (loaded on first use). */
export async function parseFile(file: File): Promise<IndexDocument[]> {
  if (ext(file.name) === 'pdf' || file.type === 'application/pdf') {
    const { pdfToText } = await import('./pdf-text.ts');
    const { title, text, pages } = await pdfToText(await file.arrayBuffer());
    if (!text.trim()) throw new Error(`${file.name} has no text layer (a scanned PDF?); nothing to index.`);
    return [{ id: `file-${slug(file.name)}`, text, meta: { source: 'import', uri: `file:${file.name}`, title: title ?? stem(file.name), format: 'pdf', pages } }];
  }
  return parseText(file.name, await file.text());
}

/** A pasted text as one document; its id is a hash of the text, so pasting twice does not duplicate. */
export function parsePasted(text: string, title?: string): IndexDocument[] {
  if (!text.trim()) return [];
  const trimmed = title?.trim();
  return [{ id: `paste-${fnv1a(text)}`, text, meta: { source: 'paste', title: trimmed || text.trim().split('\n')[0].slice(0, 80) } }];
}
