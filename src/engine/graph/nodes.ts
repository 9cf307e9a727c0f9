/**
 * The graph's nodes: every live passage of a view (quarantined documents left out), numbered in
 * index order, with the id `retrieve` gives it (`hitId`), and the passages' terms as one
 * term → nodes table merged over the segments' postings (the index already holds them; nothing is
 * re-analysed). Both rare-term edges and community labels read that table.
 */
import { hitId } from '../index/hit-id.ts';
import { docAt, type Candidate, type DocEntry, type IndexView, type LiveSegment } from '../index/view.ts';

export interface GraphNodes {
  version: number;
  /** Node → hit id (chunk unit). */
  ids: string[];
  /** Node → chunk key. */
  keys: Uint32Array;
  /** Node → its document. */
  docs: DocEntry[];
  /** Node → where it lives in the view (for `toHit`). */
  segs: LiveSegment[];
  locals: Uint32Array;
  /** Hit id → node. */
  byId: Map<string, number>;
  /** Chunk key → node. */
  byKey: Map<number, number>;
  /** Document id → its nodes in chunk order. */
  byDoc: Map<string, number[]>;
}

/** The live passages of `view`, leaving out documents `skip` names. */
export function graphNodes(view: IndexView, skip: ReadonlySet<string>): GraphNodes {
  const ids: string[] = [];
  const keys: number[] = [];
  const docs: DocEntry[] = [];
  const segs: LiveSegment[] = [];
  const locals: number[] = [];
  view.segments.forEach((seg, si) => {
    const dead = view.dead[si];
    for (let local = 0; local < seg.size; local++) {
      if (dead[local]) continue;
      const doc = docAt(seg, local);
      if (!doc || skip.has(doc.id)) continue;
      ids.push(hitId({ seg, local, doc } as Candidate, 'chunk'));
      keys.push(seg.record.chunkKeys[local]);
      docs.push(doc);
      segs.push(seg);
      locals.push(local);
    }
  });
  const byId = new Map(ids.map((id, n) => [id, n]));
  const byKey = new Map(keys.map((k, n) => [k, n]));
  const byDoc = new Map<string, number[]>();
  docs.forEach((d, n) => {
    const list = byDoc.get(d.id);
    if (list) list.push(n);
    else byDoc.set(d.id, [n]);
  });
  for (const list of byDoc.values()) list.sort((a, b) => segs[a].lex.chunkIndex[locals[a]] - segs[b].lex.chunkIndex[locals[b]]);
  return { version: view.version, ids, keys: Uint32Array.from(keys), docs, segs, locals: Uint32Array.from(locals), byId, byKey, byDoc };
}

/** term → the nodes holding it (each once), over every segment of the view. */
export interface TermTable {
  terms: string[];
  /** Nodes of term t: nodes[offsets[t] .. offsets[t + 1]). */
  offsets: Uint32Array;
  nodes: Uint32Array;
}

/** Merges the segments' postings into one table over `g`'s nodes (dead and skipped passages left out). */
export function termTable(view: IndexView, g: GraphNodes): TermTable {
  const index = new Map<string, number>();
  const lists: number[][] = [];
  view.segments.forEach((seg) => {
    const { terms, offsets, postings } = seg.lex;
    const keys = seg.record.chunkKeys;
    for (let t = 0; t < terms.length; t++) {
      let list: number[] | undefined;
      for (let p = offsets[t]; p < offsets[t + 1]; p++) {
        const node = g.byKey.get(keys[postings[p]]);
        if (node === undefined) continue;
        if (!list) {
          let at = index.get(terms[t]);
          if (at === undefined) {
            index.set(terms[t], (at = lists.length));
            lists.push([]);
          }
          list = lists[at];
        }
        list.push(node);
      }
    }
  });
  const terms = [...index.keys()];
  const offsets = new Uint32Array(terms.length + 1);
  let total = 0;
  lists.forEach((l, t) => {
    offsets[t] = total;
    total += l.length;
  });
  offsets[terms.length] = total;
  const nodes = new Uint32Array(total);
  lists.forEach((l, t) => nodes.set(l, offsets[t]));
  return { terms, offsets, nodes };
}
