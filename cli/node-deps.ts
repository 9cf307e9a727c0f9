/**
 * The CLI's Node-only dependencies. None of them is a dependency of the package: a browser app
 * that installs `rcp-in-page` gets only what its pages serve. They are optional peer
 * dependencies, loaded here on first use; a missing one stops the CLI with the `npm install` line
 * that brings it (see README "Build a site's index ahead of time").
 */

/** Thrown when an optional dependency of the CLI is not installed. */
export class MissingDependencyError extends Error {
  override readonly name = 'MissingDependencyError';
}

async function optional<T>(name: string, why: string): Promise<T> {
  try {
    return (await import(/* @vite-ignore */ name)) as T;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new MissingDependencyError(`${why} needs the package '${name}': npm install --save-dev ${name}`);
    }
    throw e;
  }
}

/** DOMParsers for Node: linkedom for HTML (fast, forgiving), xmldom for XML (namespace-aware, which .docx needs). */
export interface NodeDom {
  html: DOMParser;
  /** Runs `fn` with the global DOMParser parsing XML (the page's .docx code uses the global). */
  withXml<T>(fn: () => Promise<T>): Promise<T>;
}

export async function loadDom(): Promise<NodeDom> {
  const { DOMParser: HtmlParser } = await optional<{ DOMParser: new () => DOMParser }>('linkedom', 'reading HTML');
  let xml: (new () => DOMParser) | undefined;
  return {
    html: new HtmlParser(),
    async withXml(fn) {
      xml ??= (await optional<{ DOMParser: new () => DOMParser }>('@xmldom/xmldom', 'reading .docx')).DOMParser;
      (globalThis as { DOMParser?: unknown }).DOMParser = xml;
      return fn();
    },
  };
}

type PdfJs = Pick<typeof import('pdfjs-dist'), 'getDocument'>;
let pdfjs: Promise<PdfJs> | undefined;

/** pdfjs-dist's build for Node (no DOM, no worker thread: it runs its worker code in-process). */
export function loadPdfjs(): Promise<PdfJs> {
  return (pdfjs ??= optional<PdfJs>('pdfjs-dist/legacy/build/pdf.mjs', 'reading PDF'));
}
