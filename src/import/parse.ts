/**
 * Files and pasted text → documents for `index/add`. Supports .txt, .md/.mdx (front-matter becomes
 * metadata), .html, .json (arrays of {id,text,meta} or {title,text}, or {documents:[…]}), .jsonl
 * (BEIR corpus lines {_id,title,text}), .pdf (text layer, page offsets kept) and .docx. Every file
 * gets an outcome for the import report; binary content is refused by its bytes, whatever the name.
 * Ids are stable (derived from the file name or given ids) so re-importing replaces instead of
 * duplicating.
 */
import type { IndexDocument } from '../protocol/types.ts';
import { htmlToText } from './html-text.ts';
import { fnv1a, slug } from './ids.ts';
import { sniff } from './sniff.ts';

/** Extensions the importer reads as text (anything else with text bytes is read as plain text too). */
const TEXT_EXTENSIONS = ['txt', 'text', 'md', 'markdown', 'mdx', 'html', 'htm', 'json', 'jsonl', 'ndjson', 'csv', 'tsv', 'log', 'xml', 'rst', 'org', 'tex'];
/** The file picker offers exactly what the importer reads. */
export const ACCEPT = [...TEXT_EXTENSIONS, 'pdf', 'docx'].map((e) => `.${e}`).join(',');

/** What happened to one file: the import report's row. */
export type FileOutcome =
  | { name: string; status: 'parsed'; docs: IndexDocument[] }
  | { name: string; status: 'empty' | 'unsupported' | 'binary' | 'failed'; reason: string };

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

/** The text of a Markdown document's first `# ` heading. */
export function markdownTitle(text: string): string | undefined {
  return /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
}

/**
 * Markdown front-matter (a leading `---` … `---` block): its `key: value` lines become metadata and
 * the block leaves the text. Scalars only (strings, numbers, booleans, [a, b] lists): enough for
 * title/author/date/tags without a YAML dependency; anything else is kept as its raw string.
 */
export function frontMatter(text: string): { meta: Record<string, unknown>; body: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n?/.exec(text);
  if (!m) return { meta: {}, body: text };
  const meta: Record<string, unknown> = {};
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv || kv[2] === '') continue;
    meta[kv[1]] = scalar(kv[2].trim());
  }
  return { meta, body: text.slice(m[0].length) };
}

function scalar(v: string): unknown {
  const unq = /^(['"])(.*)\1$/.exec(v);
  if (unq) return unq[2];
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  const list = /^\[(.*)\]$/.exec(v);
  if (list) return list[1].split(',').map((x) => x.trim()).filter(Boolean).map((x) => x.replace(/^(['"])(.*)\1$/, '$2'));
  return v;
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
    case 'mdx':
    case 'markdown': {
      const { meta, body } = frontMatter(text);
      const title = typeof meta.title === 'string' && meta.title ? meta.title : (markdownTitle(body) ?? stem(name));
      return body.trim() ? [{ id, text: body, meta: { ...base, ...meta, title, format: 'markdown' } }] : [];
    }
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

/** Known formats the importer does not read (named in the report instead of "binary"). */
const UNSUPPORTED: Readonly<Record<string, string>> = Object.freeze({
  doc: 'Word 97 documents (save as .docx)', xls: 'spreadsheets', xlsx: 'spreadsheets', ppt: 'slides', pptx: 'slides', odt: 'OpenDocument text',
  png: 'images', jpg: 'images', jpeg: 'images', gif: 'images', webp: 'images', svg: 'images', mp3: 'audio', wav: 'audio', mp4: 'video',
  zip: 'archives', gz: 'archives', tar: 'archives', exe: 'programs',
});

/** The outcome of reading one File: documents, or why there are none. Never throws. */
export async function parseFile(file: File): Promise<FileOutcome> {
  const name = file.name;
  const kind = ext(name);
  try {
    if (file.size === 0) return { name, status: 'empty', reason: 'the file is empty' };
    const head = new Uint8Array(await file.slice(0, 8192).arrayBuffer());
    const sniffed = sniff(head);
    const isPdf = kind === 'pdf' || file.type === 'application/pdf' || (sniffed.kind === 'binary' && sniffed.format === 'PDF document');
    if (isPdf) {
      const { pdfToText } = await import('./pdf-text.ts');
      const { title, text, pages, pageStarts } = await pdfToText(await file.arrayBuffer());
      if (!text.trim()) return { name, status: 'empty', reason: 'no text layer (a scanned PDF?)' };
      return { name, status: 'parsed', docs: [{ id: `file-${slug(name)}`, text, meta: { source: 'import', uri: `file:${name}`, title: title ?? stem(name), format: 'pdf', pages, pageStarts } }] };
    }
    if (kind === 'docx') {
      const { docxToText } = await import('./docx-text.ts');
      const { title, text } = await docxToText(await file.arrayBuffer());
      if (!text.trim()) return { name, status: 'empty', reason: 'the document has no text' };
      return { name, status: 'parsed', docs: [{ id: `file-${slug(name)}`, text, meta: { source: 'import', uri: `file:${name}`, title: title ?? stem(name), format: 'docx' } }] };
    }
    if (UNSUPPORTED[kind]) return { name, status: 'unsupported', reason: `${UNSUPPORTED[kind]} are not supported` };
    if (sniffed.kind === 'binary') return { name, status: 'binary', reason: `binary content${sniffed.format ? ` (${sniffed.format})` : ''}, not text` };
    const docs = parseText(name, await file.text());
    if (docs.length > 0) return { name, status: 'parsed', docs };
    const json = kind === 'json' || kind === 'jsonl' || kind === 'ndjson';
    return { name, status: 'empty', reason: json ? 'no records with a text field (looked for text, body, content, contents)' : 'no text in the file' };
  } catch (e) {
    return { name, status: 'failed', reason: (e as Error).message };
  }
}

/** A pasted text as one document; its id is a hash of the text, so pasting twice does not duplicate. */
export function parsePasted(text: string, title?: string): IndexDocument[] {
  if (!text.trim()) return [];
  const trimmed = title?.trim();
  return [{ id: `paste-${fnv1a(text)}`, text, meta: { source: 'paste', title: trimmed || text.trim().split('\n')[0].slice(0, 80) } }];
}
