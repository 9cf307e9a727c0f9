/**
 * The retrieval engine: owns the in-memory index versions, serialises writes, and commits each
 * write as ONE atomic `Change` through the IndexStore before publishing it. No DOM, no JSON-RPC:
 * it runs in a Web Worker and in Node alike.
 *
 * Several engines may share one store (one per tab): `IndexState` keeps this engine's versions in
 * step with the store and, with a `Coordination`, runs every write under a cross-engine lock on
 * up-to-date state, so segment ids, chunk keys and upserts never conflict.
 *
 * Over 300 lines on purpose: it is the engine's whole public surface (open, add, delete, clear,
 * documents, retrieve) around one write queue and one lock order; each method delegates its work
 * to a stage module, and splitting the class would scatter that ordering.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError, invalidParams } from '../protocol/errors.ts';
import type { FilterFieldType, Hit, RetrieveMode, RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { checkAborted } from '../util/abort.ts';
import { createAnalyzer, type Analyzer } from './analysis/analyzer.ts';
import { Bm25 } from './index/bm25.ts';
import {
  DEFAULT_ANALYZER, DEFAULT_BM25, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CONTEXT_WEIGHT, DEFAULT_FIELDS,
  DEFAULT_LIMITS, type EngineLimits,
} from './config.ts';
import type { Embedder, IndexStore, IndexSummary, Manifest, Reranker } from './contracts.ts';
import type { AddOptions, AddResult, DeleteResult, EngineOptions } from './engine-options.ts';
import type { Coordination } from './state/coordination.ts';
import { engineCapabilities, type EngineCapabilities } from './capabilities.ts';
import { readDocument, summarize, type DocumentDetail, type DocumentPage } from './query/documents.ts';
import { IndexState } from './state/index-state.ts';
import type { LanguageDetector } from './analysis/language.ts';
import { absentQueryLanguage, describeProfile, languageProfile, termCoverage, type LanguageProfile } from './query/language-gate.ts';
import { checkAddDocuments, prepareDocuments, type AddDocument, type PresetVectors } from './index/prepare.ts';
import { exportDocuments, type ExportPage } from './query/export.ts';
import { corpusMap, type CorpusMap, type MapCache, type MapOptions } from './query/corpus-map.ts';
import { BackgroundReembed } from './state/background-reembed.ts';
import { VectorPrefetch } from './state/vector-prefetch.ts';
import { EarlyVectors } from './state/early-vectors.ts';
import { EmbedOrder, SPARSE_TOP } from './state/embed-order.ts';
import { needsVectors } from './state/reembed.ts';
import { nextStamp } from './index/select-top.ts';
import { contentText } from '../protocol/content.ts';
import { DocumentRewritten } from './query/hits.ts';
import { findMatches, MATCHES_FIELD, queryText } from './query/matches.ts';
import { addPages } from './query/pages.ts';
import { facetValues, type FacetValue } from './query/facets.ts';
import { runRetrieve, type RetrieveContext } from './query/retrieve.ts';
import type { RetrievePlan } from './query/plan.ts';
import { Sessions } from './query/dedup-sessions.ts';
import { queryVariants, rewriteQuery, type Correction } from './query/transform.ts';
import { planWrite, type PlannedWrite } from './index/write-plan.ts';
import { SerialQueue } from '../util/serial-queue.ts';
import { TextCache } from './state/text-cache.ts';
import { denseModel, missingVectors } from './index/dense.ts';
import { ForegroundGate } from './state/foreground.ts';
import { GraphService } from './graph/service.ts';
import type { GraphPlan } from './graph/plan.ts';
import type { GraphResult } from '../protocol/types.ts';
import type { ValidatedFeedback } from '../protocol/validate-feedback.ts';
import { FeedbackService, type FeedbackOutcome } from './feedback/service.ts';
import { quarantined, released, restoredQuarantine } from './feedback/quarantine.ts';
import { makeView, type DocEntry, type IndexView } from './index/view.ts';
import type { FeedbackRecord, QuarantineEntry } from './contracts.ts';
import { unchangedIds, withoutDocs } from './index/unchanged.ts';

/** Texts per embedder call in background passes, per batch the embedder runs at once: about one WASM batch each, so a request waits for one at most. */
const BACKGROUND_BATCH = 8;
/** The longest a background batch defers to foreground requests (a steady stream must not stop it). */
const FOREGROUND_MAX_WAIT_MS = 2_000;

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
  private readonly store: IndexStore;
  /** The dense encoder, when one was given (dense/hybrid modes, stored vectors). */
  readonly embedder?: Embedder;
  /** Vectors are written by the background pass, not by `add` (slow encoders; sparse sees text at once). */
  private readonly embedInBackground: boolean;
  /** The store takes no writes (EngineOptions.readOnly). */
  private readonly readOnly: boolean;
  private readonly detectLanguage?: () => Promise<LanguageDetector>;
  private languages?: { version: number; profile: LanguageProfile };
  private answeredFirst!: () => void;
  private readonly firstAnswered = new Promise<void>((resolve) => (this.answeredFirst = resolve));
  /** Rerankers in preference order; a retrieve plan names the one it uses (src/server/retrieve-plan.ts). */
  readonly rerankers: readonly Reranker[];
  private readonly bm25: Bm25;
  private readonly contextWeight: number;
  private readonly chunkSize: number;
  private readonly chunkOverlap: number;
  private readonly sessions: Sessions;
  /** The configured default mode; the capabilities say whether it is served (serving.ts). */
  private readonly defaultMode?: RetrieveMode;
  private readonly coordination?: Coordination;
  private readonly state: IndexState;
  /** Hit texts of live documents, from memory when recently read. */
  private readonly texts: TextCache;
  private opened = false;
  /** Writes, one at a time in call order (preparation included). */
  private readonly writeQueue = new SerialQueue();
  private mintCounter = 0;
  private readonly mintPrefix = Math.random().toString(36).slice(2, 8);
  /** Re-embeds, in the background, segments the embedder cannot search (absent without an embedder). */
  private readonly reembed?: BackgroundReembed;
  /** Vectors the background pass embedded ahead of their segment's commit; dense search scores them. */
  private readonly early = new EarlyVectors();
  /** What the person searches for and reads, which the background pass embeds first. */
  private readonly embedOrder = new EmbedOrder();
  /** Reads the vectors after the first answer, so a cold start's first sparse query does not wait on them. */
  /** Requests a person waits for; background embedding lets them go first (state/foreground.ts). */
  private readonly foreground = new ForegroundGate();
  private readonly prefetch = new VectorPrefetch(() => this.state.prefetchVectors(), () => this.foreground.busy);
  /** Warnings from `open()` (stale vectors, analyzer changes) and from background re-embedding. */
  readonly warnings: string[] = [];
  /** The passage graph and its ops (§7.9), built on first use and refreshed after writes. */
  private readonly graphs: GraphService;
  /** `feedback` (§7.16): counts kept with the index, integrity signals quarantine documents. */
  private readonly feedbacks: FeedbackService;
  private readonly now: () => number;
  /** What `open()` found missing from the store (segments the manifest lists): lost passages. */
  readonly missing: string[] = [];
  /** What the index held as `open()` completed, before any write of this engine. */
  openedAs: (IndexSummary & { storedId: boolean }) | undefined;

  constructor(options: EngineOptions) {
    this.store = options.store;
    this.embedder = options.embedder;
    this.embedInBackground = options.embedInBackground === true;
    this.readOnly = options.readOnly === true;
    this.detectLanguage = options.detectLanguage;
    this.rerankers = options.reranker === undefined ? [] : Array.isArray(options.reranker) ? [...options.reranker] : [options.reranker as Reranker];
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, ...options.limits });
    this.fields = Object.freeze({ ...(options.fields ?? DEFAULT_FIELDS) });
    this.analyzer = createAnalyzer({ ...DEFAULT_ANALYZER, ...options.analyzer });
    this.bm25 = new Bm25({ ...DEFAULT_BM25, ...options.bm25 });
    this.contextWeight = options.contextWeight ?? DEFAULT_CONTEXT_WEIGHT;
    this.chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    this.chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
    this.defaultMode = options.defaultMode;
    this.sessions = new Sessions(this.limits.sessionTtlSeconds * 1000, this.limits.maxSessions, options.now);
    this.coordination = options.coordination;
    this.state = new IndexState({
      store: this.store,
      analyzerId: this.analyzer.id,
      embedder: this.embedder,
      retainVersions: this.limits.retainVersions,
      coordination: this.coordination,
      onReload: () => {
        // The store may have been replaced (same ids and versions, other texts): forget cached texts.
        this.texts.clear();
        this.reembed?.schedule();
      },
      onPublished: (cleared) => {
        this.texts.committed();
        options.onCommitted?.(this.summary(), cleared);
      },
    });
    this.texts = new TextCache(
      this.store,
      // Not `docs`: a text read must not build the id map of a lazily opened index (~1 s at 1M);
      // until something else builds it, the versions the hits want decide (TextCache).
      () => this.state.docsIfBuilt,
      this.coordination && (() => !this.state.needsRefresh),
    );
    if (this.embedder && !this.readOnly) {
      this.reembed = new BackgroundReembed({
        embedder: this.embedder,
        store: this.store,
        state: this.state,
        // Small calls, each after the foreground is idle: a request waits for one batch at most.
        batch: Math.min(this.limits.embedBatch, BACKGROUND_BATCH),
        beforeBatch: () => this.foreground.idle(FOREGROUND_MAX_WAIT_MS),
        coordination: this.coordination,
        warnings: this.warnings,
        now: options.now,
        early: this.early,
        order: this.embedOrder,
      });
    }
    this.now = options.now ?? Date.now;
    this.feedbacks = new FeedbackService({
      store: this.store,
      docs: () => this.state.docs,
      quarantine: async (add, signal) => {
        const before = new Set((this.state.manifest.quarantine ?? []).map((e) => e.id));
        await this.manifestWrite((m) => quarantined(m, add, this.now()), signal);
        return [...add.keys()].filter((id) => !before.has(id));
      },
      now: this.now,
    });
    this.graphs = new GraphService({
      analyzer: this.analyzer,
      embedder: this.embedder,
      texts: this.texts,
      currentView: async () => {
        await this.state.refresh();
        await this.state.resident('everything');
        await this.state.vectorsLoaded();
        return this.state.current();
      },
      retrieve: (plan, ctx) => this.retrieveNow(plan, ctx),
      idle: () => this.foreground.idle(FOREGROUND_MAX_WAIT_MS),
      stale: () => this.state.markStale(),
    });
  }

  /** Loads manifest, segments and document meta (never document text). Idempotent. */
  async open(): Promise<void> {
    await this.writeQueue.run(() =>
      this.state.exclusive(async () => {
        if (this.opened) return;
        const { warnings, missing } = await this.state.load();
        this.warnings.push(...warnings);
        this.missing.push(...missing);
        this.openedAs = this.summary();
        this.opened = true;
      }),
    );
    // A read-only index (a published bundle) or a store read on demand (a bundle over HTTP) reads its
    // vectors after the first answer only: the idle read would spend the visitor's bandwidth before
    // the first query, and race it.
    if (!this.readOnly && !this.store.partial) this.prefetch.arm();
    // A store that answers dense recall on demand (a static-model bundle: state/residency.ts) keeps
    // doing so: reading every vector after the first answer would spend megabytes of the visitor's
    // bandwidth on what a few shards per query serve. What needs the vectors still reads them.
    if (this.store.partial?.denseNearest) this.prefetch.close();
    this.reembed?.schedule();
  }

  /**
   * Settles when the background re-embedding (§15.7) started by `open()` or a reload is done:
   * with the number of segments it rewrote (0 when nothing needed it), or rejected with the error
   * that stopped it (also recorded in `warnings`).
   */
  whenReembedded(): Promise<number> {
    return this.reembed?.whenDone() ?? Promise.resolve(0);
  }

  /**
   * Forget what is in memory at the next use and reload it from the store: call it when the store
   * connection was lost (another tab deleted or upgraded the database).
   */
  invalidate(): void {
    this.state.invalidate();
  }

  /** Stops listening to other engines and stops background re-embedding. The store stays open (its owner closes it). */
  close(): void {
    this.state.close();
    this.graphs.close();
    this.prefetch.close();
    this.reembed?.close();
  }

  /** The current index version token. */
  get indexVersion(): string {
    return String(this.state.current().version);
  }

  /** Live document count. */
  get size(): number {
    return this.state.documentCount;
  }

  /** Counts for status displays; when another engine committed since, a reload starts in the background. */
  stats(): { documents: number; chunks: number; indexVersion: string } {
    if (this.state.needsRefresh && this.opened) this.state.refresh().catch(() => undefined);
    const v = this.state.current();
    return { documents: this.state.documentCount, chunks: v.live, indexVersion: String(v.version) };
  }

  /**
   * What the index holds now, as a record kept outside the database remembers it (`storeId` is
   * the database's once `storedId` is true: loaded from it or committed since).
   */
  summary(): IndexSummary & { storedId: boolean } {
    const m = this.state.manifest;
    return {
      storeId: m.storeId ?? '',
      storedId: this.state.stored,
      indexVersion: m.version,
      documents: m.documents ?? this.state.docs.size,
      chunks: this.state.current().live,
      ...(this.embedder ? { model: this.embedder.identity } : {}),
    };
  }

  /** Adds or replaces documents (§7.10) in one atomic commit. */
  add(docs: AddDocument[], opts: AddOptions = {}): Promise<AddResult> {
    return this.writeQueue.run(async () => {
      this.assertOpen();
      this.assertWritable();
      checkAborted(opts.signal);
      checkAddDocuments(docs, this.limits.maxDocumentsPerAdd);
      const key = opts.idempotencyKey;
      if (key !== undefined) {
        const prior = await this.store.getIdempotent(key);
        if (prior !== undefined) return prior as AddResult;
      }
      const ids = docs.map((d) => d.id ?? this.mintId());
      // Duplicates of one id inside the batch: the last wins.
      const last = new Map(ids.map((id, i) => [id, i]));
      const effective = ids.flatMap((id, i) => (last.get(id) === i ? [{ ...docs[i], id }] : []));
      this.checkRoom(effective);
      // Analysis and embedding run outside the cross-engine lock; only planning and commit hold it.
      const prepared = await prepareDocuments(effective, {
        analyzer: this.analyzer,
        language: await this.detectLanguage?.(),
        embedder: this.embedInBackground ? undefined : this.embedder,
        preset: this.usablePreset(opts.vectors),
        chunk: opts.chunk === true,
        contextual: opts.contextual === true,
        chunkSize: opts.chunkSize ?? this.chunkSize,
        chunkOverlap: opts.chunkOverlap ?? this.chunkOverlap,
        embedBatch: this.limits.embedBatch,
        onProgress: opts.onProgress,
        signal: opts.signal,
      });
      return this.state.locked(opts.signal, async () => {
        if (key !== undefined && this.coordination) {
          const prior = await this.store.getIdempotent(key); // another engine may have applied it meanwhile
          if (prior !== undefined) return prior as AddResult;
        }
        this.checkRoom(effective);
        const view = this.state.current();
        // §7.10: a document re-added exactly as stored is not rewritten (see unchanged.ts).
        const identity = prepared.dense?.identity;
        const oneAnalysis = view.segments.every((g) => g.lex.analyzer === this.analyzer.id && g.lex.contextWeight === this.contextWeight && (identity === undefined || g.record.dense?.identity === identity));
        const todo = oneAnalysis ? withoutDocs(prepared, await unchangedIds(this.store, this.state.docs, prepared.docs)) : prepared;
        if (todo.docs.length === 0) return { ids, chunks: prepared.chunks, indexVersion: String(view.version), ...(opts.vectors ? { vectorsReused: prepared.reused ?? 0 } : {}) };
        const plan = planWrite(view, this.state.docs, this.state.manifest, todo.docs, [], {
          analyzerId: this.analyzer.id,
          contextWeight: this.contextWeight,
          maxSegments: this.limits.maxSegments,
          dense: todo.dense,
        });
        const result: AddResult = { ids, chunks: prepared.chunks, indexVersion: String(plan.view.version) };
        if (opts.vectors) result.vectorsReused = prepared.reused ?? 0;
        if (key !== undefined) plan.change.idempotency = { key, result };
        checkAborted(opts.signal);
        await this.store.commit(plan.change);
        this.publish(plan);
        return result;
      });
    });
  }

  /** Deletes documents by id (§7.11); idempotent, counts only documents actually removed. */
  delete(ids: string[], opts: { signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.writeQueue.run(async () => {
      this.assertOpen();
      this.assertWritable();
      checkAborted(opts.signal);
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalidParams('ids', 'must be an array of strings');
      return this.state.locked(opts.signal, async () => {
        const current = this.state.current();
        const present = [...new Set(ids)].filter((id) => this.state.docs.has(id));
        if (present.length === 0) return { deleted: 0, indexVersion: String(current.version) };
        const plan = planWrite(current, this.state.docs, this.state.manifest, [], present, {
          analyzerId: this.analyzer.id,
          contextWeight: this.contextWeight,
          maxSegments: this.limits.maxSegments,
        });
        await this.store.commit(plan.change);
        this.publish(plan);
        return { deleted: plan.deleted, indexVersion: String(plan.view.version) };
      });
    });
  }

  /**
   * Deletes every document in one atomic store step and publishes an empty index at a new version.
   * Older versions are dropped (their texts are gone), so pins and cursors on them are -32010 /
   * -32015. Resolves only after the clear is durable.
   */
  clear(opts: { signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.writeQueue.run(async () => {
      this.assertOpen();
      this.assertWritable();
      checkAborted(opts.signal);
      return this.state.locked(opts.signal, async () => {
        const deleted = this.state.docs.size;
        // Everything goes, the quarantine list with the documents it names.
        const { quarantine: _gone, ...m } = this.state.manifest;
        const version = m.version + 1;
        const next: Manifest = { ...m, version, segmentIds: [], tombstones: [], chunkless: 0, documents: 0, clearedAt: version };
        await this.store.clear(next);
        this.state.publishCleared(next);
        this.texts.clear();
        this.early.clear();
        this.graphs.reset();
        return { deleted, indexVersion: String(next.version) };
      });
    });
  }

  /** Given vectors are reused only when they come from the model running now (same identity and dimension). */
  private usablePreset(v: PresetVectors | undefined): PresetVectors | undefined {
    const e = this.embedder;
    return v && e && v.identity === e.identity && v.dimension === e.dimension ? v : undefined;
  }

  /**
   * A page of whole documents sorted by id, for a portable export: text, meta, chunk ranges and
   * (with `vectors`) each chunk's vector from the running model, which `model` names.
   */
  async exportDocuments(offset: number, limit: number, vectors: boolean): Promise<ExportPage> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('documents');
    if (vectors) await this.state.vectorsLoaded();
    const ids = this.state.sortedDocIds().slice(offset, offset + limit);
    const model = vectors && this.embedder ? denseModel(this.embedder) : undefined;
    const documents = await exportDocuments(this.store, this.state.current(), ids, model, this.state.manifest.quarantine);
    return { documents, total: this.state.docs.size, model: model && { identity: model.identity, dimension: model.dimension } };
  }

  private readonly mapCache: { current?: MapCache } = {};

  /** The passages' vectors on their first two principal axes (query/corpus-map.ts), with the query placed on them. */
  async corpusMap(o: MapOptions, attempt = 1): Promise<CorpusMap> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('documents');
    await this.state.vectorsLoaded();
    const e = this.embedder;
    const embedQuery = e && (async (q: string, signal?: AbortSignal) => (await e.embed([q], 'query', signal))[0]);
    const view = this.state.current();
    const map = await corpusMap(view, e && denseModel(e), embedQuery, o, this.mapCache);
    map.indexVersion = String(view.version);
    if (o.communityLevel === undefined || map.points.length === 0) return map;
    // The graph's communities colour the dots; both at one version (a write in between maps again).
    const { of, indexVersion } = await this.graphs.communityOf(map.points.map((p) => p.id), o.communityLevel, 'communityLevel', o.signal);
    if (indexVersion !== map.indexVersion && attempt < 3) return this.corpusMap(o, attempt + 1);
    map.points = map.points.map((p) => (of.has(p.id) ? { ...p, community: of.get(p.id)! } : p));
    return map;
  }

  /** A page of live documents sorted by id (UTF-16 code-unit order), from memory only: no text is read. */
  documents(offset = 0, limit = DEFAULT_DOCUMENT_PAGE): Promise<DocumentPage> {
    return this.foreground.track(() => this.documentsNow(offset, limit));
  }

  private async documentsNow(offset: number, limit: number): Promise<DocumentPage> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('documents');
    const ids = this.state.sortedDocIds();
    const page = ids.slice(offset, offset + limit).map((id) => this.state.docs.get(id)!);
    return { documents: summarize(this.state.current(), page), total: ids.length };
  }

  /** Distinct values of a metadata field with document counts, most frequent first (query/facets.ts). */
  async facets(field: string, limit: number): Promise<{ values: FacetValue[]; distinct: number }> {
    this.assertOpen();
    await this.state.refresh();
    // Counted when a bundle was built, when they answer exactly: no document is read.
    const built = this.store.partial?.facets?.(field, limit);
    if (built) return built;
    await this.state.resident('documents');
    return facetValues(this.state.docs.values(), field, limit);
  }

  /** One live document with its text and chunk ranges, or undefined when there is none with this id. */
  document(id: string): Promise<DocumentDetail | undefined> {
    return this.foreground.track(async () => {
      this.assertOpen();
      await this.state.refresh();
      if (this.reembed) this.embedOrder.noteOpen(id);
      return readDocument(this.store, id);
    });
  }

  /**
   * Runs a retrieve (§7.7) over the current or a pinned/cursor version, as planned: validation,
   * gating and clamping happened in `planRetrieve` (src/server/retrieve-plan.ts).
   */
  retrieve(plan: RetrievePlan, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
    const run = this.foreground.track(() =>
      this.prefetch.around(async () => {
        const result = await this.retrieveNow(plan, ctx);
        this.noteSearch(plan, result);
        return result;
      }),
    );
    const answered = () => this.answeredFirst();
    run.then(answered, answered);
    return run;
  }

  /** Settles once the first retrieve has settled (its answer is on its way): what the worker waits for before a bundle's model loads. */
  firstAnswer(): Promise<void> {
    return this.firstAnswered;
  }

  /**
   * While chunks wait for vectors, a retrieve tells the background pass what to embed first: its
   * query's sparse top hits (whatever mode it was served in; the request's filter is not applied)
   * and the documents of its hits (state/embed-order.ts).
   */
  private noteSearch(plan: RetrievePlan, result: RetrieveResult): void {
    if (!this.reembed || !this.embedder) return;
    const model = denseModel(this.embedder);
    const view = this.state.current();
    if (!view.segments.some((seg) => needsVectors(seg, model))) return;
    const terms = this.analyzer.queryTerms(contentText(plan.params.query));
    const top = this.bm25.search(view, terms, { k: SPARSE_TOP, unit: 'chunk', stamp: nextStamp() });
    const docs = result.hits.flatMap((h) => (h.citation?.source !== undefined ? [h.citation.source] : []));
    this.embedOrder.noteQuery(top.map((c) => c.seg.record.chunkKeys[c.local]), docs);
  }

  private async retrieveNow(plan: RetrievePlan, ctx: RetrieveContext): Promise<RetrieveResult> {
    this.assertOpen();
    await this.state.refresh();
    const { params } = plan;
    for (let attempt = 1; ; attempt++) {
      try {
        return this.withMatches(params, await this.retrieveOnce(plan, ctx));
      } catch (e) {
        if (!(e instanceof DocumentRewritten)) throw e;
        // A cursor names a snapshot whose text is gone: that cursor has expired (§10, -32015).
        if (params.cursor !== undefined) throw new RcpError(ErrorCode.NotFound, 'cursor expired', { field: 'cursor', detail: e.data?.detail });
        // A pinned version is served or refused, never another (§7.7.1).
        if (params.indexVersion !== undefined || attempt >= 3) throw e;
        // Unpinned: a write (here or in another tab) committed while this query ran. Catch up, run again.
        this.state.markStale();
        await this.state.refresh();
      }
    }
  }

  /**
   * §7.9 `graph` over the passage graph of the current version, as planned (validated and bounded at
   * the front door, src/protocol/validate-graph.ts). The first call builds the graph (seconds on a
   * large index, yielding to other requests); later writes refresh it in the background.
   */
  graph(plan: GraphPlan, ctx: { signal?: AbortSignal } = {}): Promise<GraphResult> {
    return this.foreground.track(async () => {
      this.assertOpen();
      return this.graphs.run(plan, ctx.signal);
    });
  }

  /** True when `feedback` can be served (the store keeps feedback). */
  get feedbackAvailable(): boolean {
    return this.feedbacks.available;
  }

  /**
   * §7.16 `feedback`, validated at the front door: counts each signal for its hit, and quarantines
   * the documents an integrity signal flags (a new index version, committed before this resolves).
   * Hit ids that name nothing live are counted out (`unknown`), never an error.
   */
  async feedback(v: ValidatedFeedback, ctx: { signal?: AbortSignal } = {}): Promise<FeedbackOutcome> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('documents');
    return this.feedbacks.record(v, ctx.signal);
  }

  /** What feedback one document's hits got. */
  async documentFeedback(id: string): Promise<FeedbackRecord | undefined> {
    this.assertOpen();
    return this.feedbacks.forDocument(id);
  }

  /** Documents in quarantine, oldest first, with whether they still exist and their title. */
  async quarantine(): Promise<(QuarantineEntry & { exists: boolean; title?: string })[]> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('documents');
    const docs = this.state.docs;
    return [...(this.state.manifest.quarantine ?? [])]
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      .map((e) => {
        const title = docs.get(e.id)?.meta.title;
        return { ...e, exists: docs.has(e.id), ...(typeof title === 'string' ? { title } : {}) };
      });
  }

  /**
   * After an index file's documents were added: their feedback (replacing what they had, when the
   * file carries some) and their quarantine (added, with the file's reasons and time). Re-importing
   * the same file changes nothing more.
   */
  async restoreExtras(docs: readonly { id: string; feedback?: FeedbackRecord['hits']; quarantine?: Omit<QuarantineEntry, 'id'> }[], opts: { signal?: AbortSignal } = {}): Promise<void> {
    this.assertOpen();
    if (this.feedbacks.available) await this.feedbacks.replace(docs.flatMap((d) => (d.feedback ? [{ docId: d.id, hits: d.feedback }] : [])));
    const held = docs.flatMap((d) => (d.quarantine ? [{ id: d.id, ...d.quarantine }] : []));
    if (held.length) await this.manifestWrite((m) => restoredQuarantine(m, held), opts.signal);
  }

  /** Takes documents out of quarantine (a new version when any was in it); returns how many were. */
  async release(ids: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<{ released: number; indexVersion: string }> {
    this.assertOpen();
    let count = 0;
    const indexVersion = await this.manifestWrite((m) => {
      const held = new Set((m.quarantine ?? []).map((e) => e.id));
      count = new Set(ids.filter((id) => held.has(id))).size;
      return released(m, ids);
    }, opts.signal);
    return { released: count, indexVersion };
  }

  /**
   * A write that changes only the manifest (a quarantine, a release): one atomic commit of the
   * next manifest under the write lock, published as a new version over the same segments.
   */
  private manifestWrite(next: (m: Manifest) => Manifest | undefined, signal?: AbortSignal): Promise<string> {
    return this.writeQueue.run(() =>
      this.state.locked(signal, async () => {
        const m = next(this.state.manifest);
        if (!m) return String(this.state.manifest.version);
        const v = this.state.current();
        const view = makeView(m.version, [...v.segments], [...v.dead]);
        await this.store.commit({ putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest: m });
        this.state.publish(m, view);
        this.graphs.changed();
        return String(m.version);
      }),
    );
  }

  /**
   * §7.8 query transformation from the index's own vocabulary: `rewrite` gives the spelling-corrected
   * query, `multi-query` up to `n` variants (transform.ts). `corrections` lists the words changed.
   */
  async transform(query: string, method: 'rewrite' | 'multi-query', n = 3): Promise<{ queries: string[]; corrections: Correction[] }> {
    this.assertOpen();
    await this.state.refresh();
    await this.state.resident('everything');
    const deps = { analyzer: this.analyzer, view: this.state.current(), texts: this.texts };
    if (method === 'rewrite') {
      const r = await rewriteQuery(query, deps);
      return { queries: [r.query], corrections: r.corrections };
    }
    const v = await queryVariants(query, n, deps);
    return { queries: v.queries, corrections: v.rewrite.corrections };
  }

  /** Page numbers for paged documents (query/pages.ts); `x-inpage-matches` on hits with text when asked (query/matches.ts). */
  private withMatches(params: RetrieveParams, result: RetrieveResult): RetrieveResult {
    addPages(result.hits);
    const text = params._meta?.[MATCHES_FIELD] === true ? queryText(params.query) : undefined;
    if (text === undefined) return result;
    const terms = this.analyzer.queryTerms(text);
    for (const h of result.hits) if (typeof h.text === 'string') (h as Hit & Record<string, unknown>)[MATCHES_FIELD] = findMatches(this.analyzer, terms, h.text);
    return result;
  }

  private retrieveOnce(plan: RetrievePlan, ctx: RetrieveContext): Promise<RetrieveResult> {
    return runRetrieve(
      {
        analyzer: this.analyzer,
        bm25: this.bm25,
        embedder: this.embedder,
        readChunks: this.store.partial ? (keys) => this.store.partial!.readFine(keys) : (keys) => this.store.getChunks(keys),
        vectorsLoaded: () => this.state.vectorsLoaded(),
        early: this.early,
        residency: this.state.residency,
        // Not over a store read on demand (a bundle): its term dictionary is not all in memory.
        absentLanguage: this.embedder?.crossLingual && this.detectLanguage && !this.state.residency ? (text, view) => this.absentLanguage(text, view) : undefined,
        texts: this.texts,
        fields: this.fields,
        sessions: this.sessions,
        viewAt: (v) => this.state.viewAt(v),
        current: () => this.state.current(),
      },
      plan,
      ctx,
    );
  }

  /** The query's language when no live document shares it (query/language-gate.ts); the profile is kept per index version. */
  private async absentLanguage(text: string, view: IndexView): Promise<{ query: string; index: string } | undefined> {
    const detect = await this.detectLanguage!();
    const profile = this.languageProfile();
    const query = absentQueryLanguage(text, detect, profile, () => termCoverage(this.analyzer.queryTerms(text), view));
    return query === undefined ? undefined : { query, index: describeProfile(profile) };
  }

  /**
   * How many live documents carry each `meta.lang` (detected at add when absent), counted once per
   * index version. Over a store read on demand (a bundle), documents whose meta is not read yet count
   * as unknown. `skip` leaves documents out (counted afresh, not cached).
   */
  languageProfile(skip?: (d: DocEntry) => boolean): LanguageProfile {
    if (skip) return languageProfile(this.state.docs.values(), skip); // a subset: not cached
    const version = this.state.current().version;
    if (this.languages?.version !== version) this.languages = { version, profile: languageProfile(this.state.docs.values()) };
    return this.languages.profile;
  }

  /** The engine's part of the advertised capabilities (§6): dense/hybrid only with an embedder, scoreFloor only when known. */
  capabilities(): EngineCapabilities {
    return engineCapabilities({
      embedder: this.embedder,
      rerankers: this.rerankers,
      limits: this.limits,
      fields: this.fields,
      defaultMode: this.defaultMode,
      feedback: this.feedbacks.available,
      readOnly: this.readOnly,
    });
  }

  /** Live chunks dense search cannot see yet (no vectors from the current embedder); 0 without one. */
  pendingVectors(): number {
    return this.embedder ? missingVectors(this.state.current(), denseModel(this.embedder), this.early) : 0;
  }

  /** Chunks embedded ahead of their segment's commit (searchable, not yet stored). */
  unstoredVectors(): number {
    return this.early.size;
  }

  /** Makes a committed write current; a segment a failed re-embedding pass left behind is retried. */
  private publish(plan: PlannedWrite): void {
    this.state.publish(plan.change.manifest, plan.view, plan.applyDocs);
    this.reembed?.schedule(true);
    this.graphs.changed();
  }

  /** -32013 when adding `docs` would exceed `maxLiveDocuments`. */
  private checkRoom(docs: readonly { id: string }[]): void {
    const max = this.limits.maxLiveDocuments;
    if (max === undefined) return;
    const live = this.state.docs;
    const after = live.size + docs.filter((d) => !live.has(d.id)).length;
    if (after > max) throw new RcpError(ErrorCode.PayloadTooLarge, `index full: ${after} documents > ${max}`, { detail: `at most ${max} documents` });
  }

  private assertOpen(): void {
    if (!this.opened) throw new RcpError(ErrorCode.BackendUnavailable, 'engine not opened', { detail: 'call open() first', retryable: true });
  }

  /** -32003 for a write to a read-only engine (the server never advertises `index` for one). */
  private assertWritable(): void {
    if (this.readOnly) throw new RcpError(ErrorCode.CapabilityMissing, 'the index is read-only', { detail: 'a bundle is read-only: rebuild it with `rcp-in-page index`' });
  }

  private mintId(): string {
    const docs = this.state.docs;
    let id: string;
    do id = `doc-${this.mintPrefix}-${(++this.mintCounter).toString(36)}`;
    while (docs.has(id));
    return id;
  }
}
