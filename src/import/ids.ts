/** Stable document ids for imports, so importing the same thing twice replaces rather than duplicates. */

/** Lowercase ASCII slug of a name (file name, title). */
export const slug = (s: string): string =>
  s.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'doc';

/** FNV-1a 32-bit hash as 8 hex digits (content ids for pasted text). */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
