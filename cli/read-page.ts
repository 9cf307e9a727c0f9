/**
 * One file of the site → its document, with the page's own import code wherever it is pure
 * (src/import: byte sniffing, front-matter, PDF text layer, .docx): HTML (html-page.ts),
 * Markdown with front-matter, PDF, .docx and plain text. Every file gets an outcome naming what
 * happened, so the CLI can report a malformed or binary file by name instead of indexing junk.
 */
import { readFile } from 'node:fs/promises';
import { docxToText } from '../src/import/docx-text.ts';
import { frontMatter, markdownTitle } from '../src/import/parse.ts';
import { pdfTextWith } from '../src/import/pdf-text.ts';
import { sniff } from '../src/import/sniff.ts';
import type { IndexDocument } from '../src/protocol/types.ts';
import { htmlPage } from './html-page.ts';
import type { NodeDom } from './node-deps.ts';

/** Extensions the indexer reads, by kind. */
const KINDS: Readonly<Record<string, 'html' | 'markdown' | 'pdf' | 'docx' | 'text'>> = Object.freeze({
  html: 'html', htm: 'html', md: 'markdown', mdx: 'markdown', markdown: 'markdown', pdf: 'pdf', docx: 'docx', txt: 'text', text: 'text',
});

export const indexedExtension = (path: string): boolean => extOf(path) in KINDS;
const extOf = (path: string): string => (/\.([^./]+)$/.exec(path)?.[1] ?? '').toLowerCase();
const stem = (path: string): string => path.replace(/^.*\//, '').replace(/\.[^.]+$/, '');

export type PageOutcome =
  | { path: string; status: 'parsed'; doc: IndexDocument }
  | { path: string; status: 'empty' | 'binary' | 'failed'; reason: string };

export interface ReadContext {
  /** DOMParsers for HTML and XML (node-deps.ts). */
  dom: NodeDom;
  /** pdfjs-dist's Node build, loaded on the first PDF. */
  pdfjs(): Promise<Parameters<typeof pdfTextWith>[0]>;
  /** The site's URL prefix ('' for root-relative URLs: `/guide/intro.html`). */
  baseUrl: string;
}

/**
 * The URL a page is served at: its path under `baseUrl`, `index.html` as its folder. A Markdown
 * page is served as the HTML a site generator makes of it (`guide/intro.md` → `guide/intro.html`)
 * unless its front-matter names a `permalink` or `url`.
 */
export function pageUrl(path: string, baseUrl: string, frontMatterUrl?: unknown): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (typeof frontMatterUrl === 'string' && frontMatterUrl.trim()) {
    const u = frontMatterUrl.trim();
    return /^[a-z][a-z0-9+.-]*:/i.test(u) ? u : `${base}/${u.replace(/^\/+/, '')}`;
  }
  let p = path;
  if (extOf(p) === 'md' || extOf(p) === 'mdx' || extOf(p) === 'markdown') p = p.replace(/\.[^.]+$/, '.html');
  p = p.replace(/(^|\/)index\.html?$/, '$1');
  return `${base}/${p.split('/').map(encodeURIComponent).join('/')}`;
}

/** Reads `abs` (whose path under the site root is `path`, with `/` separators). Never throws. */
export async function readPage(abs: string, path: string, ctx: ReadContext): Promise<PageOutcome> {
  const kind = KINDS[extOf(path)];
  try {
    const bytes = await readFile(abs);
    if (bytes.length === 0) return { path, status: 'empty', reason: 'the file is empty' };
    const sniffed = sniff(bytes.subarray(0, 8192));
    const data = (): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const base = { path, format: kind };
    const doc = (text: string, title: string | undefined, meta: Record<string, unknown>, url = pageUrl(path, ctx.baseUrl)): PageOutcome =>
      text.trim()
        ? { path, status: 'parsed', doc: { id: path, text, meta: { ...meta, ...base, title: title || stem(path), url } } }
        : { path, status: 'empty', reason: kind === 'pdf' ? 'no text layer (a scanned PDF?)' : 'no text in the file' };
    if (kind === 'pdf') {
      if (sniffed.kind !== 'binary' || sniffed.format !== 'PDF document') return { path, status: 'failed', reason: 'not a PDF (no %PDF header)' };
      const pdf = await pdfTextWith(await ctx.pdfjs(), data());
      return doc(pdf.text, pdf.title, { pages: pdf.pages, pageStarts: pdf.pageStarts });
    }
    if (kind === 'docx') {
      if (sniffed.kind !== 'binary' || sniffed.format !== 'ZIP archive') return { path, status: 'failed', reason: 'not a Word document (not a ZIP container)' };
      const d = await ctx.dom.withXml(() => docxToText(data()));
      return doc(d.text, d.title, {});
    }
    if (sniffed.kind === 'binary') return { path, status: 'binary', reason: `binary content${sniffed.format ? ` (${sniffed.format})` : ''}, not ${kind === 'text' ? 'text' : kind.toUpperCase()}` };
    const text = new TextDecoder().decode(bytes);
    if (kind === 'html') {
      const page = htmlPage(text, ctx.dom.html);
      return doc(page.text, page.title, page.meta);
    }
    if (kind === 'markdown') {
      const { meta, body } = frontMatter(text);
      const title = typeof meta.title === 'string' && meta.title ? meta.title : markdownTitle(body);
      return doc(body, title, meta, pageUrl(path, ctx.baseUrl, meta.permalink ?? meta.url));
    }
    return doc(text, undefined, {});
  } catch (e) {
    return { path, status: 'failed', reason: (e as Error).message };
  }
}
