/**
 * The retrieval engine: a facade over its stages (built and wired once: stages.ts). Each method
 * hands its request to one of them:
 *
 *   - writes (open's load, add, delete, clear, quarantine, release) to the writer, which owns the
 *     write queue and the lock order and commits each write as ONE atomic `Change` before it is
 *     published (state/writer.ts);
 *   - `retrieve` to the retriever (query/retriever.ts → the pipeline in query/retrieve.ts);
 *   - every other read through one prelude, as foreground work (state/reads.ts), to its stage
 *     module (documents, facets, export, corpus map, transform, graph, feedback).
 *
 * No DOM, no JSON-RPC: it runs in a Web Worker and in Node alike. Several engines may share one
 * store (one per tab): `IndexState` keeps this engine's versions in step with the store and, with a
 * `Coordination`, runs every write under a cross-engine lock on up-to-date state.
 */
import type { FilterFieldType, GraphResult, RetrieveResult } from '../protocol/types.ts';
import type { ValidatedFeedback } from '../protocol/validate-feedback.ts';
import type { Analyzer } from './analysis/analyzer.ts';
import { engineCapabilities, type EngineCapabilities } from './capabilities.ts';
import type { EngineLimits } from './config.ts';
import type { Embedder, FeedbackRecord, IndexSummary, QuarantineEntry, Reranker } from './contracts.ts';
import type { AddOptions, AddResult, DeleteResult, EngineOptions } from './engine-options.ts';
import { listQuarantine, type ListedQuarantine } from './feedback/quarantine.ts';
import type { FeedbackOutcome } from './feedback/service.ts';
import type { GraphPlan } from './graph/plan.ts';
import { denseModel, missingVectors } from './index/dense.ts';
import type { AddDocument } from './index/prepare.ts';
import type { DocEntry } from './index/view.ts';
import { corpusMap, type CorpusMap, type MapCache, type MapOptions } from './query/corpus-map.ts';
import { readDocument, summarize, type DocumentDetail, type DocumentPage } from './query/documents.ts';
import { exportDocuments, type ExportPage } from './query/export.ts';
import { facetValues, type FacetValue } from './query/facets.ts';
import type { LanguageProfile } from './query/language-gate.ts';
import type { RetrievePlan } from './query/plan.ts';
import type { RetrieveContext } from './query/retrieve.ts';
import { queryVariants, rewriteQuery, type Correction } from './query/transform.ts';
import { correctTypos } from './query/typos.ts';
import { buildStages, indexSummary, type Stages } from './stages.ts';

export type { EngineCapabilities } from './capabilities.ts';
export type { DocumentDetail, DocumentPage, DocumentSummary } from './query/documents.ts';
export type { AddOptions, AddResult, DeleteResult, EngineOptions } from './engine-options.ts';
export type { RetrievePlan } from './query/plan.ts';
export type { GraphPlan } from './graph/plan.ts';
export type { FeedbackOutcome } from './feedback/service.ts';

/** Page size of `documents()` when none is given. */
export const DEFAULT_DOCUMENT_PAGE = 100;

export class Engine {
  readonly analyzer: Analyzer;
  readonly limits: Readonly<EngineLimits>;
  readonly fields: Readonly<Record<string, FilterFieldType>>;
  /** The dense encoder, when one was given (dense/hybrid modes, stored vectors). */
  readonly embedder?: Embedder;
  /** Rerankers in preference order; a retrieve plan names the one it uses (src/server/retrieve-plan.ts). */
  readonly rerankers: readonly Reranker[];
  /** Warnings from `open()` (stale vectors, analyzer changes) and from background re-embedding. */
  readonly warnings: string[] = [];
  /** What `open()` found missing from the store (segments the manifest lists): lost passages. */
  readonly missing: string[] = [];
  /** What the index held as `open()` completed, before any write of this engine. */
  openedAs: (IndexSummary & { storedId: boolean }) | undefined;
  private readonly s: Stages;
  private readonly mapCache: { current?: MapCache } = {};

  constructor(options: EngineOptions) {
    this.s = buildStages(options, this.warnings);
    ({ analyzer: this.analyzer, limits: this.limits, fields: this.fields, embedder: this.embedder, rerankers: this.rerankers } = this.s);
  }

  /** Loads manifest, segments and document meta (never document text). Idempotent. */
  async open(): Promise<void> {
    await this.s.writer.open(({ warnings, missing }) => {
      this.warnings.push(...warnings);
      this.missing.push(...missing);
      this.openedAs = this.summary();
    });
    // A read-only index (a published bundle) or a store read on demand (a bundle over HTTP) reads its
    // vectors after the first answer only: the idle read would spend the visitor's bandwidth before
    // the first query, and race it.
    if (!this.s.readOnly && !this.s.store.partial) this.s.prefetch.arm();
    // A store that answers dense recall on demand (a static-model bundle: state/residency.ts) keeps
    // doing so: reading every vector after the first answer would spend megabytes of the visitor's
    // bandwidth on what a few shards per query serve. What needs the vectors still reads them.
    if (this.s.store.partial?.denseNearest) this.s.prefetch.close();
    this.s.reembed?.schedule();
  }

  /**
   * Settles when the background re-embedding (§15.7) started by `open()` or a reload is done:
   * with the number of segments it rewrote (0 when nothing needed it), or rejected with the error
   * that stopped it (also recorded in `warnings`).
   */
  whenReembedded(): Promise<number> {
    return this.s.reembed?.whenDone() ?? Promise.resolve(0);
  }

  /**
   * Forget what is in memory at the next use and reload it from the store: call it when the store
   * connection was lost (another tab deleted or upgraded the database).
   */
  invalidate(): void {
    this.s.state.invalidate();
  }

  /** Stops listening to other engines and stops background re-embedding. The store stays open (its owner closes it). */
  close(): void {
    this.s.state.close();
    this.s.graphs.close();
    this.s.prefetch.close();
    this.s.reembed?.close();
  }

  /** The current index version token. */
  get indexVersion(): string {
    return String(this.s.state.current().version);
  }

  /** Live document count. */
  get size(): number {
    return this.s.state.documentCount;
  }

  /** Counts for status displays; when another engine committed since, a reload starts in the background. */
  stats(): { documents: number; chunks: number; indexVersion: string } {
    if (this.s.state.needsRefresh && this.s.reads.opened) this.s.state.refresh().catch(() => undefined);
    const v = this.s.state.current();
    return { documents: this.s.state.documentCount, chunks: v.live, indexVersion: String(v.version) };
  }

  /**
   * What the index holds now, as a record kept outside the database remembers it (`storeId` is
   * the database's once `storedId` is true: loaded from it or committed since).
   */
  summary(): IndexSummary & { storedId: boolean } {
    return indexSummary(this.s.state, this.embedder);
  }

  /** Adds or replaces documents (§7.10) in one atomic commit. */
  add(docs: AddDocument[], opts: AddOptions = {}): Promise<AddResult> {
    return this.s.writer.add(docs, opts);
  }

  /** Deletes documents by id (§7.11); idempotent, counts only documents actually removed. */
  delete(ids: string[], opts: { signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.s.writer.delete(ids, opts);
  }

  /**
   * Deletes every document in one atomic store step and publishes an empty index at a new version.
   * Older versions are dropped (their texts are gone), so pins and cursors on them are -32010 /
   * -32015. Resolves only after the clear is durable.
   */
  clear(opts: { signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.s.writer.clear(opts);
  }

  /**
   * Runs a retrieve (§7.7) over the current or a pinned/cursor version, as planned: validation,
   * gating and clamping happened in `planRetrieve` (src/server/retrieve-plan.ts).
   */
  retrieve(plan: RetrievePlan, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
    return this.s.retriever.retrieve(plan, ctx);
  }

  /** Settles once the first retrieve has settled (its answer is on its way): what the worker waits for before a bundle's model loads. */
  firstAnswer(): Promise<void> {
    return this.s.retriever.firstAnswer();
  }

  /**
   * A page of whole documents sorted by id, for a portable export: text, meta, chunk ranges and
   * (with `vectors`) each chunk's vector from the running model, which `model` names.
   */
  exportDocuments(offset: number, limit: number, vectors: boolean): Promise<ExportPage> {
    return this.s.reads.read('documents', async () => {
      if (vectors) await this.s.state.vectorsLoaded();
      const ids = this.s.state.sortedDocIds().slice(offset, offset + limit);
      const model = vectors && this.embedder ? denseModel(this.embedder) : undefined;
      const documents = await exportDocuments(this.s.store, this.s.state.current(), ids, model, this.s.state.manifest.quarantine);
      return { documents, total: this.s.state.docs.size, model: model && { identity: model.identity, dimension: model.dimension } };
    });
  }

  /** The passages' vectors on their first two principal axes (query/corpus-map.ts), with the query placed on them. */
  corpusMap(o: MapOptions, attempt = 1): Promise<CorpusMap> {
    return this.s.reads.read('documents', async () => {
      await this.s.state.vectorsLoaded();
      const e = this.embedder;
      const embedQuery = e && (async (q: string, signal?: AbortSignal) => (await e.embed([q], 'query', signal))[0]);
      const view = this.s.state.current();
      const map = await corpusMap(view, e && denseModel(e), embedQuery, o, this.mapCache);
      map.indexVersion = String(view.version);
      if (o.communityLevel === undefined || map.points.length === 0) return map;
      // The graph's communities colour the dots; both at one version (a write in between maps again).
      const { of, indexVersion } = await this.s.graphs.communityOf(map.points.map((p) => p.id), o.communityLevel, 'communityLevel', o.signal);
      if (indexVersion !== map.indexVersion && attempt < 3) return this.corpusMap(o, attempt + 1);
      map.points = map.points.map((p) => (of.has(p.id) ? { ...p, community: of.get(p.id)! } : p));
      return map;
    });
  }

  /** A page of live documents sorted by id (UTF-16 code-unit order), from memory only: no text is read. */
  documents(offset = 0, limit = DEFAULT_DOCUMENT_PAGE): Promise<DocumentPage> {
    return this.s.reads.read('documents', () => {
      const ids = this.s.state.sortedDocIds();
      const page = ids.slice(offset, offset + limit).map((id) => this.s.state.docs.get(id)!);
      return { documents: summarize(this.s.state.current(), page), total: ids.length };
    });
  }

  /** Distinct values of a metadata field with document counts, most frequent first (query/facets.ts). */
  facets(field: string, limit: number): Promise<{ values: FacetValue[]; distinct: number }> {
    return this.s.reads.read('view', async () => {
      // Counted when a bundle was built, when they answer exactly: no document is read.
      const built = this.s.store.partial?.facets?.(field, limit);
      if (built) return built;
      await this.s.state.resident('documents');
      return facetValues(this.s.state.docs.values(), field, limit);
    });
  }

  /** One live document with its text and chunk ranges, or undefined when there is none with this id. */
  document(id: string): Promise<DocumentDetail | undefined> {
    return this.s.reads.read('view', () => {
      if (this.s.reembed) this.s.embedOrder.noteOpen(id);
      return readDocument(this.s.store, id);
    });
  }

  /**
   * §7.9 `graph` over the passage graph of the current version, as planned (validated and bounded at
   * the front door, src/protocol/validate-graph.ts). The first call builds the graph (seconds on a
   * large index, yielding to other requests); later writes refresh it in the background.
   */
  graph(plan: GraphPlan, ctx: { signal?: AbortSignal } = {}): Promise<GraphResult> {
    return this.s.reads.read('view', () => this.s.graphs.run(plan, ctx.signal));
  }

  /** True when `feedback` can be served (the store keeps feedback). */
  get feedbackAvailable(): boolean {
    return this.s.feedbacks.available;
  }

  /**
   * §7.16 `feedback`, validated at the front door: counts each signal for its hit, and quarantines
   * the documents an integrity signal flags (a new index version, committed before this resolves).
   * Hit ids that name nothing live are counted out (`unknown`), never an error.
   */
  feedback(v: ValidatedFeedback, ctx: { signal?: AbortSignal } = {}): Promise<FeedbackOutcome> {
    return this.s.reads.read('documents', () => this.s.feedbacks.record(v, ctx.signal));
  }

  /** What feedback one document's hits got. */
  documentFeedback(id: string): Promise<FeedbackRecord | undefined> {
    return this.s.reads.read('view', () => this.s.feedbacks.forDocument(id));
  }

  /** Documents in quarantine, oldest first, with whether they still exist and their title. */
  quarantine(): Promise<ListedQuarantine[]> {
    return this.s.reads.read('documents', () => listQuarantine(this.s.state.manifest, this.s.state.docs));
  }

  /**
   * After an index file's documents were added: their feedback (replacing what they had, when the
   * file carries some) and their quarantine (added, with the file's reasons and time). Re-importing
   * the same file changes nothing more.
   */
  async restoreExtras(docs: readonly { id: string; feedback?: FeedbackRecord['hits']; quarantine?: Omit<QuarantineEntry, 'id'> }[], opts: { signal?: AbortSignal } = {}): Promise<void> {
    this.s.reads.assertOpen();
    if (this.s.feedbacks.available) await this.s.feedbacks.replace(docs.flatMap((d) => (d.feedback ? [{ docId: d.id, hits: d.feedback }] : [])));
    await this.s.writer.restoreQuarantine(docs.flatMap((d) => (d.quarantine ? [{ id: d.id, ...d.quarantine }] : [])), opts.signal);
  }

  /** Takes documents out of quarantine (a new version when any was in it); returns how many were. */
  release(ids: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<{ released: number; indexVersion: string }> {
    return this.s.writer.release(ids, opts.signal);
  }

  /**
   * §7.8 query transformation from the index's own vocabulary: `rewrite` gives the spelling-corrected
   * query, `multi-query` up to `n` variants (transform.ts). `corrections` lists the words changed.
   * Over a bundle with typo shards, `rewrite` corrects from them (one edit: query/typos.ts).
   */
  transform(query: string, method: 'rewrite' | 'multi-query', n = 3): Promise<{ queries: string[]; corrections: Correction[] }> {
    const residency = this.s.state.residency;
    if (method === 'rewrite' && residency?.typos) {
      // A bundle with typo shards corrects from them (query/typos.ts) instead of reading the whole index.
      return this.s.reads.read('view', async () => {
        const r = await correctTypos(query, { analyzer: this.analyzer, view: this.s.state.current(), residency });
        return { queries: [r.query], corrections: r.fixes.map((f) => ({ from: f.from, to: f.kept ? `${f.from} ${f.to}` : f.to })) };
      });
    }
    return this.s.reads.read('everything', async () => {
      const deps = { analyzer: this.analyzer, view: this.s.state.current(), texts: this.s.texts };
      if (method === 'rewrite') {
        const r = await rewriteQuery(query, deps);
        return { queries: [r.query], corrections: r.corrections };
      }
      const v = await queryVariants(query, n, deps);
      return { queries: v.queries, corrections: v.rewrite.corrections };
    });
  }

  /**
   * How many live documents carry each `meta.lang` (detected at add when absent), counted once per
   * index version. Over a store read on demand (a bundle), documents whose meta is not read yet count
   * as unknown. `skip` leaves documents out (counted afresh, not cached).
   */
  languageProfile(skip?: (d: DocEntry) => boolean): LanguageProfile {
    return this.s.languages.current(skip);
  }

  /** The engine's part of the advertised capabilities (§6): dense/hybrid only with an embedder, scoreFloor only when known. */
  capabilities(): EngineCapabilities {
    const { embedder, rerankers, limits, fields, defaultMode, readOnly, feedbacks } = this.s;
    return engineCapabilities({ embedder, rerankers, limits, fields, defaultMode, readOnly, feedback: feedbacks.available });
  }

  /** Live chunks dense search cannot see yet (no vectors from the current embedder); 0 without one. */
  pendingVectors(): number {
    return this.embedder ? missingVectors(this.s.state.current(), denseModel(this.embedder), this.s.early) : 0;
  }

  /** Chunks embedded ahead of their segment's commit (searchable, not yet stored). */
  unstoredVectors(): number {
    return this.s.early.size;
  }
}
