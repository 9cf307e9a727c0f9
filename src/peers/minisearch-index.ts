/**
 * MiniSearch 7 with its defaults (BM25+, OR of the query terms, no fuzzy or prefix matching),
 * over the title and text fields: the in-browser full-text engine people would pick instead.
 */
import MiniSearch from 'minisearch';
import type { PeerDocument, PeerHit, PeerIndex } from './peer-index.ts';

export function miniSearchIndex(): PeerIndex {
  const ms = new MiniSearch<PeerDocument>({ fields: ['title', 'text'], idField: 'id' });
  return {
    name: 'MiniSearch',
    version: '7 (defaults)',
    modes: ['sparse'],
    needsVectors: false,
    async add(docs) {
      for (const d of docs) if (ms.has(d.id)) ms.discard(d.id);
      ms.addAll(docs);
    },
    async remove(ids) {
      let n = 0;
      for (const id of new Set(ids)) if (ms.has(id)) (ms.discard(id), n++);
      return n;
    },
    async search(query, k): Promise<PeerHit[]> {
      return ms.search(query).slice(0, k).map((r) => ({ id: String(r.id), score: r.score }));
    },
  };
}
