/**
 * Orama 3 with its defaults: full-text search over title and text (its BM25), and — with a
 * dimension — vector and hybrid search over our model's vectors (its default similarity threshold,
 * 0.8, and hybrid weights). The engine people would pick for hybrid search in the browser.
 */
import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import type { PeerHit, PeerIndex, PeerMode } from './peer-index.ts';

export function oramaIndex(dimension?: number): PeerIndex {
  const schema: Record<string, string> = { id: 'string', title: 'string', text: 'string' };
  if (dimension) schema.embedding = `vector[${dimension}]`;
  const db: AnyOrama = create({ schema: schema as never });
  const ids = new Set<string>();
  const modes: PeerMode[] = dimension ? ['sparse', 'dense', 'hybrid'] : ['sparse'];
  return {
    name: dimension ? 'Orama hybrid' : 'Orama',
    version: dimension ? '3 (defaults, our model\'s vectors)' : '3 (defaults)',
    modes,
    needsVectors: dimension !== undefined,
    async add(docs, vectors) {
      const again = docs.filter((d) => ids.has(d.id)).map((d) => d.id);
      if (again.length) await removeMultiple(db, again);
      const rows = docs.map((d, i) => (dimension ? { ...d, embedding: Array.from(vectors![i]) } : { ...d }));
      await insertMultiple(db, rows as never, 1000);
      for (const d of docs) ids.add(d.id);
    },
    async remove(list) {
      const present = [...new Set(list)].filter((id) => ids.has(id));
      if (present.length) await removeMultiple(db, present);
      for (const id of present) ids.delete(id);
      return present.length;
    },
    async search(term, k, mode, vector): Promise<PeerHit[]> {
      const params =
        mode === 'sparse'
          ? { term, limit: k, properties: ['title', 'text'] }
          : { mode: mode === 'dense' ? 'vector' : 'hybrid', term, vector: { value: Array.from(vector!), property: 'embedding' }, limit: k, properties: ['title', 'text'] };
      const r = (await search(db, params as never)) as { hits: { id: string; score: number }[] };
      return r.hits.map((h) => ({ id: String(h.id), score: h.score }));
    },
  };
}
