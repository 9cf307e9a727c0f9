/**
 * Recently read document texts, so that hits keep coming from memory while a person refines a
 * query over the same documents (a hit's text is a slice of its document's stored text, and a
 * document can be large: a PDF, a long speech). Bounded by characters, least recently used out.
 *
 * Only a document's live version is served from memory; any other version (a pinned snapshot
 * after an upsert, a deleted document) is read from the store as before, so what a pinned query
 * gets (its text, or -32010 once it is gone) does not depend on what happens to be cached. The
 * live version comes from the engine's id map; a lazily opened index has none until something
 * builds it (~1 s at 1M), so a reader that knows the version it wants (a hit's, from the view it
 * was found in) passes it: a text read at that version with no commit of this engine since is
 * the live one, and is served again until the next commit (`committed()`). When
 * other engines (tabs) share the store, `fresh()` says whether one of them announced a commit this
 * engine has not caught up with: then the store is read, which reveals their writes. `fresh()` is
 * synchronous (the commit announcements, no IndexedDB read per hit); between another tab's commit
 * and the arrival of its announcement a cached text may still be served — the same window in
 * which this engine's in-memory index, and so the hit list itself, has not seen that commit yet.
 */
import type { IndexStore, StoredDocument } from '../contracts.ts';

/**
 * `versions[i]`, when given, is the version of `ids[i]` the caller wants (a hit's document in the
 * view it was found in); a store ignores it, the cache uses it when it has no id map.
 */
export interface DocumentReader {
  getDocuments(ids: string[], versions?: readonly (number | undefined)[]): Promise<(StoredDocument | undefined)[]>;
}

type StoreReader = Pick<IndexStore, 'getDocuments'>;

/** Live documents by id (the engine's id map). */
interface LiveDocs {
  get(id: string): { readonly version: number } | undefined;
}

interface Cached {
  doc: StoredDocument;
  /** The commit count when it was read: with no id map, only a text read since the last commit is known live. */
  commits: number;
}

/** Characters kept (UTF-16 code units; about twice as many bytes). */
export const TEXT_CACHE_CHARS = 8_000_000;

export class TextCache implements DocumentReader {
  private readonly docs = new Map<string, Cached>();
  private chars = 0;
  /** Bumped by `clear()`: a read that began before it must not refill the cache. */
  private generation = 0;
  /** Bumped by `committed()`. */
  private commits = 0;

  /**
   * `liveDocs()`: this engine's live documents by id, or undefined while that map is not built
   * (then the versions the callers want decide). `fresh()`: false once another engine announced a
   * commit this one has not loaded (absent: this engine is the store's only writer).
   */
  constructor(
    private readonly store: StoreReader,
    private readonly liveDocs: () => LiveDocs | undefined,
    private readonly fresh?: () => boolean,
    private readonly maxChars = TEXT_CACHE_CHARS,
  ) {}

  async getDocuments(ids: string[], versions?: readonly (number | undefined)[]): Promise<(StoredDocument | undefined)[]> {
    const generation = this.generation;
    const commits = this.commits;
    const usable = this.docs.size > 0 && (!this.fresh || this.fresh());
    const out: (StoredDocument | undefined)[] = ids.map((id, i) => (usable ? this.hit(id, versions?.[i]) : undefined));
    const missing = ids.flatMap((id, i) => (out[i] === undefined ? [i] : []));
    if (missing.length === 0) return out;
    const read = await this.store.getDocuments(missing.map((i) => ids[i]));
    missing.forEach((i, j) => {
      const doc = read[j];
      out[i] = doc;
      if (doc && generation === this.generation && this.isLive(doc, versions?.[i], commits)) this.put(doc);
    });
    return out;
  }

  /** Forgets every text; reads under way when it is called do not refill the cache. */
  clear(): void {
    this.docs.clear();
    this.chars = 0;
    this.generation++;
  }

  /** This engine published a commit: a text known live only by its wanted version may be stale now. */
  committed(): void {
    this.commits++;
  }

  /** `doc` (read or cached at commit count `commits`) is the live version. */
  private isLive(doc: StoredDocument, wanted: number | undefined, commits: number): boolean {
    const live = this.liveDocs();
    if (live) return doc.version === live.get(doc.id)?.version;
    return wanted !== undefined && doc.version === wanted && commits === this.commits;
  }

  private hit(id: string, wanted: number | undefined): StoredDocument | undefined {
    const entry = this.docs.get(id);
    if (!entry) return undefined;
    this.drop(id);
    if (!this.isLive(entry.doc, wanted, entry.commits)) return undefined;
    this.docs.set(id, entry); // most recently used last
    this.chars += entry.doc.text.length;
    return entry.doc;
  }

  private put(doc: StoredDocument): void {
    if (doc.text.length > this.maxChars) return;
    this.drop(doc.id);
    this.docs.set(doc.id, { doc, commits: this.commits });
    this.chars += doc.text.length;
    for (const [id] of this.docs) {
      if (this.chars <= this.maxChars) break;
      this.drop(id);
    }
  }

  private drop(id: string): void {
    const entry = this.docs.get(id);
    if (!entry) return;
    this.docs.delete(id);
    this.chars -= entry.doc.text.length;
  }
}

/**
 * A reader for one query: each document is read (from the cache or the store) at most once, so
 * the rerank pool, the similarity fallback of MMR and the page share one read.
 */
export function readOncePerQuery(reader: DocumentReader): DocumentReader {
  const seen = new Map<string, Promise<StoredDocument | undefined>>();
  return {
    getDocuments(ids, versions) {
      const missing = new Map<string, number | undefined>();
      ids.forEach((id, i) => seen.has(id) || missing.has(id) || missing.set(id, versions?.[i]));
      if (missing.size > 0) {
        const list = [...missing.keys()];
        const read = reader.getDocuments(list, versions && [...missing.values()]);
        list.forEach((id, i) => seen.set(id, read.then((docs) => docs[i])));
      }
      return Promise.all(ids.map((id) => seen.get(id)!));
    },
  };
}
