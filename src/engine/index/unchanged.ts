/**
 * §7.10: "Servers MUST make repeated `index/add` of identical `{id, text}` pairs observationally
 * identical to a single one." A document re-added exactly as it is stored (same text, meta, chunk
 * ranges and contexts, into an index analysed one way) is left alone: rewriting it would tombstone
 * its chunks — BM25's df counts tombstoned postings until a merge (bm25.ts) — and publish a new
 * index version, so a retried write would change scores and `indexVersion`.
 */
import type { IndexStore } from '../contracts.ts';
import { canonicalJson } from '../../util/canonical-json.ts';
import type { PreparedDoc } from './write-plan.ts';
import type { DocEntry } from './view.ts';

/** Ids among `docs` whose stored document (and chunks) are exactly what `docs` would write. */
export async function unchangedIds(store: IndexStore, current: ReadonlyMap<string, DocEntry>, docs: readonly PreparedDoc[]): Promise<Set<string>> {
  const candidates = docs.filter((d) => {
    const e = current.get(d.id);
    return e !== undefined && e.chunkKeys.length === d.chunks.length && canonicalJson(e.meta) === canonicalJson(d.meta);
  });
  const out = new Set<string>();
  if (candidates.length === 0) return out;
  const stored = await store.getDocuments(candidates.map((d) => d.id));
  const chunks = await store.getChunks(stored.flatMap((s) => s?.chunkKeys ?? []));
  const byKey = new Map(chunks.flatMap((c) => (c ? [[c.key, c] as const] : [])));
  candidates.forEach((d, i) => {
    const s = stored[i];
    if (!s || s.text !== d.text) return;
    const same = d.chunks.every((c, j) => {
      const k = byKey.get(s.chunkKeys[j]);
      return k !== undefined && k.start === c.start && k.end === c.end && (k.context ?? '') === c.context;
    });
    if (same) out.add(d.id);
  });
  return out;
}

/** `docs` and their dense rows without the documents in `skip` (rows follow the documents' chunks in order). */
export function withoutDocs<T extends { docs: PreparedDoc[]; dense?: { identity: string; dimension: number; vectors: Float32Array } }>(prepared: T, skip: ReadonlySet<string>): T {
  if (skip.size === 0) return prepared;
  const docs: PreparedDoc[] = [];
  const rows: number[] = [];
  let row = 0;
  for (const d of prepared.docs) {
    if (!skip.has(d.id)) {
      docs.push(d);
      for (let j = 0; j < d.chunks.length; j++) rows.push(row + j);
    }
    row += d.chunks.length;
  }
  if (!prepared.dense) return { ...prepared, docs };
  const { dimension, vectors } = prepared.dense;
  const kept = new Float32Array(rows.length * dimension);
  rows.forEach((r, i) => kept.set(vectors.subarray(r * dimension, (r + 1) * dimension), i * dimension));
  return { ...prepared, docs, dense: { ...prepared.dense, vectors: kept } };
}
