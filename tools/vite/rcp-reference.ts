/**
 * Vite plugin: copies the normative RCP/1 schema (MIT, from `../shared/rcp`, beside the repository)
 * into public/rcp/ (gitignored) so the playground's console can build a form per method from it,
 * the spec itself (public/rcp/rcp-1.0.md, which the page shows section by section, offline: the
 * lessons and the conformance checker link into it), and writes public/rcp/sections.json: each
 * method's section of the spec (number, title, link).
 * When `../shared` is absent (a user's clone) nothing is copied and the page hides the forms:
 * `__RCP_REFERENCE__` tells it, at build time, which files exist, so it never asks for a missing one.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

export interface RcpReference {
  /** URL of the copied schema, or '' when the build had none. */
  schema: string;
  /** URL of the method → spec section map, or '' when the build had no spec. */
  sections: string;
  /** URL of the copied spec text (markdown), read by the page's spec viewer; '' when absent. */
  spec: string;
}

export interface SpecSection {
  number: string;
  title: string;
  url: string;
}

/** GitHub's heading anchors: lower case, punctuation dropped, each space a hyphen. */
export const headingAnchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');

/** The spec's method sections (`### 7.7 \`retrieve\` — …`), keyed by each method named in backticks. */
export function methodSections(spec: string, specUrl: string): Record<string, SpecSection> {
  const out: Record<string, SpecSection> = {};
  for (const line of spec.split('\n')) {
    const m = /^#{3,4} (7\.\d+) (.+)$/.exec(line);
    if (!m) continue;
    const [, number, rest] = m;
    const heading = `${number} ${rest}`;
    const title = rest.replace(/[`*]/g, '').trim();
    // The methods a heading is about come before its "— gated by …" part.
    const head = rest.split('—')[0];
    for (const name of head.matchAll(/`([^`]+)`/g)) {
      out[name[1]] ??= { number, title, url: `${specUrl}#${headingAnchor(heading)}` };
    }
  }
  return out;
}

/** The published spec beside the schema, derived from the schema's own `$id` (its repository). */
export function specUrlFor(schemaId: unknown): string | undefined {
  const m = typeof schemaId === 'string' ? /^https:\/\/raw\.githubusercontent\.com\/([^/]+)\/([^/]+)\/([^/]+)\/schema\/rcp-1\.0\.json$/.exec(schemaId) : null;
  return m ? `https://github.com/${m[1]}/${m[2]}/blob/${m[3]}/spec/rcp-1.0.md` : undefined;
}

/** Copies what exists; returns the URLs the page may load. */
export function copyRcpReference(root: string, publicDir: string): RcpReference {
  const shared = process.env.RCP_SHARED_DIR ?? join(root, '..', 'shared', 'rcp');
  const schemaFrom = join(shared, 'schema', 'rcp-1.0.json');
  const specFrom = join(shared, 'spec', 'rcp-1.0.md');
  const out = join(publicDir, 'rcp');
  if (!existsSync(schemaFrom)) return { schema: '', sections: '', spec: '' };
  mkdirSync(out, { recursive: true });
  copyFileSync(schemaFrom, join(out, 'rcp-1.0.json'));
  const licence = join(shared, 'LICENSE');
  if (existsSync(licence)) copyFileSync(licence, join(out, 'LICENSE'));
  const specUrl = specUrlFor((JSON.parse(readFileSync(schemaFrom, 'utf8')) as { $id?: unknown }).$id);
  if (!existsSync(specFrom)) return { schema: '/rcp/rcp-1.0.json', sections: '', spec: '' };
  copyFileSync(specFrom, join(out, 'rcp-1.0.md'));
  if (!specUrl) return { schema: '/rcp/rcp-1.0.json', sections: '', spec: '/rcp/rcp-1.0.md' };
  writeFileSync(join(out, 'sections.json'), JSON.stringify(methodSections(readFileSync(specFrom, 'utf8'), specUrl), null, 1));
  return { schema: '/rcp/rcp-1.0.json', sections: '/rcp/sections.json', spec: '/rcp/rcp-1.0.md' };
}

export function rcpReference(opts: { root: string; publicDir: string }): Plugin {
  return {
    name: 'rcp-reference',
    // Runs before the public folder is copied or served, in `vite build`, `vite` and `vite preview`.
    config: () => ({ define: { __RCP_REFERENCE__: JSON.stringify(copyRcpReference(opts.root, opts.publicDir)) } }),
  };
}
