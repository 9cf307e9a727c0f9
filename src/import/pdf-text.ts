/**
 * The text layer of a PDF via pdfjs-dist, loaded only when a PDF is imported. Its worker is bundled
 * by vite from the app's own origin (never a CDN); eval is disabled so the CSP needs no
 * 'unsafe-eval', and fonts are not loaded (text extraction does not need them).
 */
/** Text, page count and where each page starts in the text (for page numbers in citations). */
export async function pdfToText(data: ArrayBuffer): Promise<PdfText> {
  const pdfjs = await import('pdfjs-dist');
  if (!pdfjs.GlobalWorkerOptions.workerPort) {
    pdfjs.GlobalWorkerOptions.workerPort = new Worker(new URL('pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url), { type: 'module', name: 'pdfjs' });
  }
  return pdfTextWith(pdfjs, data);
}

export interface PdfText {
  title?: string;
  text: string;
  pages: number;
  pageStarts: number[];
}

/** The same extraction over a pdfjs module already set up (the CLI passes pdfjs-dist's Node build). */
export async function pdfTextWith(pdfjs: Pick<typeof import('pdfjs-dist'), 'getDocument'>, data: ArrayBuffer): Promise<PdfText> {
  const task = pdfjs.getDocument({ data: new Uint8Array(data), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  const pdf = await task.promise;
  try {
    const pages: string[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.replace(/[ \t]+/g, ' ').trim());
      page.cleanup();
    }
    const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
    const pageStarts: number[] = [];
    let at = 0;
    for (const p of pages) {
      pageStarts.push(at);
      at += p.length + 2; // the '\n\n' between pages
    }
    return { title, text: pages.join('\n\n'), pages: pdf.numPages, pageStarts };
  } finally {
    await pdf.destroy();
  }
}
