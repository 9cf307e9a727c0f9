/**
 * The anchor of a passage's section: the `id` its page gives the heading. The index keeps a
 * heading's text (the passage's heading path); its id is derived as the usual generators derive it
 * (GitHub, markdown-it-anchor, VitePress, Docusaurus, Hugo's default): the heading's visible text
 * lowercased, punctuation dropped, spaces made hyphens — unless the page's `meta.sectionIds`
 * (written by `rcp-in-page index` for the headings whose id is another, or missing) says
 * otherwise. A site may also set the element's `sectionId`. A wrong id costs little: browsers that
 * follow text fragments scroll to the quoted text first, and others go to the top of the page.
 */
import { visibleWords } from './deep-link.ts';

export function slug(heading: string): string {
  return visibleWords(heading)
    .join(' ')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The deepest heading of a passage's context (`Title › Section › Subsection`), if below the title. */
export function sectionOf(context: string | undefined): { path: string; heading: string } | undefined {
  const parts = context?.split(' › ').slice(1).filter(Boolean) ?? [];
  const heading = parts[parts.length - 1];
  return heading ? { path: parts.join(' › '), heading } : undefined;
}

/** The id of `heading` on a page with metadata `meta`: its `sectionIds` entry, else its slug (undefined for none). */
export function anchorOf(heading: string, meta?: Readonly<Record<string, unknown>>): string | undefined {
  const s = slug(heading);
  const ids = meta?.sectionIds;
  if (ids && typeof ids === 'object' && !Array.isArray(ids)) {
    const id = (ids as Record<string, unknown>)[s];
    if (typeof id === 'string') return id || undefined;
  }
  return s || undefined;
}
