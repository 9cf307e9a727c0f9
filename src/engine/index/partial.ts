/**
 * Segments read on demand (`SegmentRecord.partial`: a bundle over HTTP). At load such a segment
 * has its chunk keys, which document each chunk belongs to and BM25's length sum, and nothing else;
 * the engine builds an empty `LexicalSegmentData` around that and fills it in as queries need
 * (state/residency.ts decides when): the postings of a query's terms before BM25 scores them, a
 * document's id, meta and citation data before a hit names it. What is filled in stays (the data
 * are immutable), so a term or a document is read once per engine.
 *
 * What is resident is tracked per record (not per LiveSegment), so views rebuilt over the same
 * records agree on it.
 */
import type { PartialDocument, PartialSegmentInfo, SegmentRecord, TermPostings } from '../contracts.ts';
import type { LexicalSegmentData } from './segment.ts';
import { localOf, newDocEntry, type DocEntry, type LiveSegment } from './view.ts';

interface Resident {
  /** Terms asked for (present or not): their postings are in the dictionary when they exist. */
  readonly asked: Set<string>;
  /** 1 = the chunk's citation data (range, document length, context) are filled in. */
  readonly cited: Uint8Array;
  /** Document entries by local document ordinal. */
  readonly entries: DocEntry[];
  /** What the store's table filled in for every document: nothing, the ids, or ids and metas. */
  table: 'none' | 'ids' | 'all';
  /** Every term of the store is in the dictionary: nothing more to ask. */
  vocabulary: boolean;
}

const resident = new WeakMap<SegmentRecord, Resident>();

function state(record: SegmentRecord): Resident {
  const r = resident.get(record);
  if (!r) throw new Error(`internal: segment ${record.id} is not a partial segment built by partialSegment()`);
  return r;
}

/**
 * Builds the empty lexical data and the (unresolved) document entries of a partial record, once:
 * returns its entries by local chunk ordinal.
 */
export function partialSegment(record: SegmentRecord & { partial: PartialSegmentInfo }): (DocEntry | undefined)[] {
  const info = record.partial;
  const n = record.chunkKeys.length;
  let r = resident.get(record);
  if (!r) {
    const lexical: LexicalSegmentData = {
      format: 1,
      analyzer: info.analyzer,
      contextWeight: info.contextWeight,
      terms: [],
      offsets: new Uint32Array(1),
      postings: n <= 65536 ? new Uint16Array(0) : new Uint32Array(0),
      tfs: new Uint16Array(0),
      lengths: new Uint32Array(n),
      chunkIndex: info.chunkIndex,
      starts: new Uint32Array(n),
      ends: new Uint32Array(n),
      docLengths: new Uint32Array(n),
      contexts: new Array<string>(n).fill(''),
    };
    record.lexical = lexical;
    const entries: DocEntry[] = [];
    for (let c = 0; c < n; ) {
      const d = info.docOf[c];
      let to = c + 1;
      while (to < n && info.docOf[to] === d) to++;
      if (d >= 0) {
        // Once per document of the bundle on a cold start: no subarray copy for the usual one-chunk document.
        const chunkKeys = to === c + 1 ? [record.chunkKeys[c]] : Array.from(record.chunkKeys.subarray(c, to));
        entries[d] = newDocEntry('', {}, 0, chunkKeys, { order: info.docBase + d });
      }
      c = to;
    }
    resident.set(record, (r = { asked: new Set(), cited: new Uint8Array(n), entries, table: 'none', vocabulary: false }));
  }
  const { entries } = r;
  const byChunk = new Array<DocEntry | undefined>(n);
  for (let c = 0; c < n; c++) {
    const d = info.docOf[c];
    byChunk[c] = d >= 0 ? entries[d] : undefined;
  }
  return byChunk;
}

/** The asked terms whose postings are not in memory yet. */
export function missingTerms(seg: LiveSegment, terms: Iterable<string>): string[] {
  const { asked, vocabulary } = state(seg.record);
  return vocabulary ? [] : [...new Set(terms)].filter((t) => !asked.has(t));
}

/** Adds every term of the store (`found`: all of them) to the dictionary. */
export function partialVocabulary(seg: LiveSegment, found: ReadonlyMap<string, TermPostings[]>): void {
  addPostings(seg, [...found.keys()], found);
  state(seg.record).vocabulary = true;
}

/**
 * Adds the postings of `terms` (all asked for; those absent from `found` are in no segment) to the
 * segment's dictionary, keeping it sorted, and fills in the lengths of the chunks they name.
 */
export function addPostings(seg: LiveSegment, terms: readonly string[], found: ReadonlyMap<string, TermPostings[]>): void {
  const r = state(seg.record);
  const lex = seg.lex;
  const added = new Map<string, TermPostings>();
  for (const t of terms) {
    if (r.asked.has(t)) continue;
    r.asked.add(t);
    const p = found.get(t)?.find((x) => x.segment === seg.id);
    if (p && p.postings.length > 0) added.set(t, p);
  }
  if (added.size === 0) return;
  const merged = [...lex.terms, ...added.keys()].sort();
  let total = lex.postings.length;
  for (const p of added.values()) total += p.postings.length;
  const offsets = new Uint32Array(merged.length + 1);
  const postings = lex.postings instanceof Uint16Array ? new Uint16Array(total) : new Uint32Array(total);
  const tfs = new Uint16Array(total);
  let at = 0;
  let old = 0; // next term of the old dictionary (both lists are sorted)
  merged.forEach((term, t) => {
    offsets[t] = at;
    const p = added.get(term);
    if (p) {
      postings.set(p.postings, at);
      tfs.set(p.tfs, at);
      for (let i = 0; i < p.postings.length; i++) lex.lengths[p.postings[i]] = p.lengths[i];
      at += p.postings.length;
    } else {
      const from = lex.offsets[old];
      const to = lex.offsets[old + 1];
      postings.set(lex.postings.subarray(from, to), at);
      tfs.set(lex.tfs.subarray(from, to), at);
      at += to - from;
      old++;
    }
  });
  offsets[merged.length] = at;
  // One assignment each, between two synchronous searches: a search sees the old or the new dictionary whole.
  Object.assign(lex, { terms: merged, offsets, postings, tfs });
}

/** True when the chunk's citation data are filled in (always, for a segment that is not partial). */
export function isCited(seg: LiveSegment, local: number): boolean {
  return seg.record.partial === undefined || state(seg.record).cited[local] === 1;
}

/** Fills in a document read whole: its entry's id, meta and version, and its chunks' citation data. */
export function fillDocument(seg: LiveSegment, doc: PartialDocument): void {
  const info = seg.record.partial!;
  const r = state(seg.record);
  const entry = r.entries[doc.ordinal - info.docBase];
  if (!entry) return; // a document with no live chunk
  Object.assign(entry, { id: doc.id, meta: doc.meta, version: doc.version, unknown: undefined });
  const lex = seg.lex;
  for (const c of doc.chunks) {
    const local = localOf(seg, c.key);
    if (local < 0) continue;
    lex.starts[local] = c.start;
    lex.ends[local] = c.end;
    lex.docLengths[local] = doc.length;
    lex.contexts[local] = c.context;
    r.cited[local] = 1;
  }
}

/**
 * Fills in every document's id (and with `meta`, its meta, version and length) from the store's
 * table, by ordinal; a document already filled in keeps what it has.
 */
export function fillTable(
  seg: LiveSegment,
  table: { ids: readonly string[]; metas?: readonly Record<string, unknown>[]; versions?: Uint32Array; lengths?: Uint32Array },
): void {
  const r = state(seg.record);
  const lex = seg.lex;
  const all = table.metas !== undefined && table.versions !== undefined && table.lengths !== undefined;
  for (const entry of r.entries) {
    if (!entry || entry.unknown === undefined) continue;
    const o = entry.order!;
    if (all) {
      Object.assign(entry, { id: table.ids[o], meta: table.metas![o], version: table.versions![o], unknown: undefined });
      const first = localOf(seg, entry.chunkKeys[0]);
      for (let c = first; c < first + entry.chunkKeys.length; c++) lex.docLengths[c] = table.lengths![o];
    } else if (entry.unknown === 'id') {
      Object.assign(entry, { id: table.ids[o], unknown: 'meta' });
    }
  }
  if (all) r.table = 'all';
  else if (r.table === 'none') r.table = 'ids';
}

/** The ordinals of the documents of these chunks whose citation data are not filled in yet. */
export function uncitedDocuments(chunks: readonly { seg: LiveSegment; local: number; doc: DocEntry }[]): number[] {
  const out = new Set<number>();
  for (const c of chunks) if (!isCited(c.seg, c.local)) out.add(c.doc.order!);
  return [...out];
}

/** Whether every document of the segment has its id (and with `meta`, its meta) filled in. */
export function tableFilled(seg: LiveSegment, what: 'ids' | 'all'): boolean {
  const { table } = state(seg.record);
  return table === 'all' || table === what;
}

/** Throws when a document's id (or meta) is read before the residency filled it in: a bug, never a silent ''. */
export function assertKnown(doc: DocEntry, what: 'id' | 'meta'): void {
  if (doc.unknown === 'id' || (what === 'meta' && doc.unknown === 'meta')) {
    throw new Error(`internal: the ${what} of document #${doc.order} was read before it was loaded`);
  }
}
