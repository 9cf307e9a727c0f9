/**
 * Recently read document texts, so that hits keep coming from memory while a person refines a
 * query over the same documents (a hit's text is a slice of its document's stored text, and a
 * document can be large: a PDF, a long speech). Bounded by characters, least recently used out.
 *
 * Only a document's live version is served from memory; any other version (a pinned snapshot
 * after an upsert, a deleted document) is read from the store as before, so what a pinned query
 * gets (its text, or -32010 once it is gone) does not depend on what happens to be cached. When
 * other engines (tabs) share the store, `fresh()` says whether one of them announced a commit this
 * engine has not caught up with: then the store is read, which reveals their writes. `fresh()` is
 * synchronous (the commit announcements, no IndexedDB read per hit); between another tab's commit
 * and the arrival of its announcement a cached text may still be served — the same window in
 * which this engine's in-memory index, and so the hit list itself, has not seen that commit yet.
 */
import type { IndexStore, StoredDocument } from '../contracts.ts';

export type DocumentReader = Pick<IndexStore, 'getDocuments'>;

/** Characters kept (UTF-16 code units; about twice as many bytes). */
export const TEXT_CACHE_CHARS = 8_000_000;

export class TextCache implements DocumentReader {
  private readonly docs = new Map<string, StoredDocument>();
  private chars = 0;
  /** Bumped by `clear()`: a read that began before it must not refill the cache. */
  private generation = 0;

  /**
   * `liveVersion(id)`: the version of the live document with that id in this engine, or undefined.
   * `fresh()`: false once another engine announced a commit this one has not loaded (absent: this
   * engine is the store's only writer).
   */
  constructor(
    private readonly store: DocumentReader,
    private readonly liveVersion: (id: string) => number | undefined,
    private readonly fresh?: () => boolean,
    private readonly maxChars = TEXT_CACHE_CHARS,
  ) {}

  async getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]> {
    const generation = this.generation;
    const usable = this.docs.size > 0 && (!this.fresh || this.fresh());
    const out: (StoredDocument | undefined)[] = ids.map((id) => (usable ? this.hit(id) : undefined));
    const missing = ids.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out;
    const read = await this.store.getDocuments(missing);
    const byId = new Map(missing.map((id, i) => [id, read[i]]));
    return ids.map((id, i) => {
      if (out[i]) return out[i];
      const doc = byId.get(id);
      if (doc && generation === this.generation && doc.version === this.liveVersion(id)) this.put(doc);
      return doc;
    });
  }

  /** Forgets every text; reads under way when it is called do not refill the cache. */
  clear(): void {
    this.docs.clear();
    this.chars = 0;
    this.generation++;
  }

  private hit(id: string): StoredDocument | undefined {
    const doc = this.docs.get(id);
    if (!doc) return undefined;
    this.drop(id);
    if (doc.version !== this.liveVersion(id)) return undefined;
    this.docs.set(id, doc); // most recently used last
    this.chars += doc.text.length;
    return doc;
  }

  private put(doc: StoredDocument): void {
    if (doc.text.length > this.maxChars) return;
    this.drop(doc.id);
    this.docs.set(doc.id, doc);
    this.chars += doc.text.length;
    for (const [id] of this.docs) {
      if (this.chars <= this.maxChars) break;
      this.drop(id);
    }
  }

  private drop(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    this.docs.delete(id);
    this.chars -= doc.text.length;
  }
}

/**
 * A reader for one query: each document is read (from the cache or the store) at most once, so
 * the rerank pool, the similarity fallback of MMR and the page share one read.
 */
export function readOncePerQuery(reader: DocumentReader): DocumentReader {
  const seen = new Map<string, Promise<StoredDocument | undefined>>();
  return {
    getDocuments(ids) {
      const missing = [...new Set(ids.filter((id) => !seen.has(id)))];
      if (missing.length > 0) {
        const read = reader.getDocuments(missing);
        missing.forEach((id, i) => seen.set(id, read.then((docs) => docs[i])));
      }
      return Promise.all(ids.map((id) => seen.get(id)!));
    },
  };
}
