/**
 * The retrieval engine: owns the in-memory index versions, serialises writes, and commits each
 * write as ONE atomic `Change` through the IndexStore before publishing it. No DOM, no JSON-RPC:
 * it runs in a Web Worker and in Node alike.
 *
 * Several engines may share one store (one per tab). With a `Coordination` every write runs under
 * a cross-engine lock and first reloads from the store if another engine advanced its version, so
 * segment ids, chunk keys and upserts never conflict; commits are announced, and an engine that
 * hears of a newer version (or whose store connection was lost) reloads before its next read.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError, invalidParams } from '../protocol/errors.ts';
import type { Capabilities, FilterFieldType, RetrieveMode, RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { checkAborted } from './abort.ts';
import { createAnalyzer, type Analyzer, type AnalyzerOptions } from './analyzer.ts';
import { Bm25, type Bm25Params } from './bm25.ts';
import {
  DEFAULT_ANALYZER, DEFAULT_BM25, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CONTEXT_WEIGHT, DEFAULT_FIELDS,
  DEFAULT_LIMITS, type EngineLimits,
} from './config.ts';
import type { Embedder, IndexStore, LoadedIndex, Manifest, Reranker } from './contracts.ts';
import { LOCKS, type Coordination } from './coordination.ts';
import { engineCapabilities, type EngineCapabilities } from './capabilities.ts';
import { readDocument, summarize, type DocumentDetail, type DocumentPage } from './documents.ts';
import { loadViews } from './load.ts';
import { checkAddDocuments, prepareDocuments, type AddDocument } from './prepare.ts';
import { needsVectors, planReembed, runReembedPass } from './reembed.ts';
import { denseModel } from './recall.ts';
import { DocumentRewritten } from './hits.ts';
import { runRetrieve, type RetrieveContext } from './retrieve.ts';
import { Sessions } from './sessions.ts';
import { makeView, type DocEntry, type IndexView } from './view.ts';
import { planWrite, type PlannedWrite } from './writer.ts';
import { SerialQueue } from './serial-queue.ts';

export type { EngineCapabilities } from './capabilities.ts';
export type { DocumentDetail, DocumentPage, DocumentSummary } from './documents.ts';

export interface EngineOptions {
  store: IndexStore;
  embedder?: Embedder;
  /** One reranker, or several with distinct methods (retrieve's `rerank.method` picks one). */
  reranker?: Reranker | readonly Reranker[];
  limits?: Partial<EngineLimits>;
  /** Filterable meta fields, name → type (§8). Default DEFAULT_FIELDS. */
  fields?: Record<string, FilterFieldType>;
  analyzer?: AnalyzerOptions;
  bm25?: Partial<Bm25Params>;
  /** BM25F-style weight of context terms (title, heading path). */
  contextWeight?: number;
  chunkSize?: number;
  chunkOverlap?: number;
  /**
   * Mode when a request names none. Default 'sparse': with the project's GloVe embedder, hybrid
   * measured below BM25 on every dev collection (docs/eval.md). Dense/hybrid need an embedder.
   */
  defaultMode?: RetrieveMode;
  /** Clock for session TTLs (tests). */
  now?: () => number;
  /**
   * Sharing the store with other engines (other tabs): a cross-engine write lock and commit
   * announcements. Absent (Node, a single tab): this engine assumes it is the only writer.
   */
  coordination?: Coordination;
}

export interface AddOptions {
  chunk?: boolean;
  contextual?: boolean;
  chunkSize?: number;
  chunkOverlap?: number;
  idempotencyKey?: string;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface AddResult {
  ids: string[];
  chunks: number;
  indexVersion: string;
}

export interface DeleteResult {
  deleted: number;
  indexVersion: string;
}

/** Page size of `documents()` when none is given. */
export const DEFAULT_DOCUMENT_PAGE = 100;


const EMPTY_MANIFEST: Manifest = { version: 0, nextChunkKey: 1, nextSegmentId: 1, segmentIds: [], tombstones: [] };

export class Engine {
  readonly analyzer: Analyzer;
  readonly limits: Readonly<EngineLimits>;
  readonly fields: Readonly<Record<string, FilterFieldType>>;
  private readonly store: IndexStore;
  private readonly embedder?: Embedder;
  private readonly rerankers: readonly Reranker[];
  private readonly bm25: Bm25;
  private readonly contextWeight: number;
  private readonly chunkSize: number;
  private readonly chunkOverlap: number;
  private readonly sessions: Sessions;
  private readonly defaultMode: RetrieveMode;
  private readonly coordination?: Coordination;
  private readonly unsubscribe: () => void;
  /** Another engine may have committed: compare with the store (and reload) before the next use. */
  private stale = false;
  /** The store may have been replaced (deleted, upgraded): reload even at an equal version. */
  private reset = false;
  private manifest: Manifest = EMPTY_MANIFEST;
  /** Retained versions, oldest first; the last is current. */
  private views: IndexView[] = [makeView(0, [], [])];
  /** Live documents of the current version by id. */
  private docs = new Map<string, DocEntry>();
  /** Ids of `docs` in code-unit order, built on first listing after a change. */
  private sortedIds: string[] | undefined;
  private opened = false;
  /** Writes, one at a time in call order (preparation included). */
  private readonly writeQueue = new SerialQueue();
  /** Sync, planning, commit and publish: never interleaved (a read's reload waits only for a commit, not a preparation). */
  private readonly stateQueue = new SerialQueue();
  private mintCounter = 0;
  private readonly mintPrefix = Math.random().toString(36).slice(2, 8);
  /** The background re-embedding pass, while one runs. */
  private reembedding: Promise<number> | undefined;
  /** Aborts background work when the engine closes. */
  private readonly background = new AbortController();
  /** Warnings from `open()` (stale vectors, analyzer changes) and from background re-embedding. */
  readonly warnings: string[] = [];

  constructor(options: EngineOptions) {
    this.store = options.store;
    this.embedder = options.embedder;
    this.rerankers = options.reranker === undefined ? [] : Array.isArray(options.reranker) ? [...options.reranker] : [options.reranker as Reranker];
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, ...options.limits });
    this.fields = Object.freeze({ ...(options.fields ?? DEFAULT_FIELDS) });
    this.analyzer = createAnalyzer({ ...DEFAULT_ANALYZER, ...options.analyzer });
    this.bm25 = new Bm25({ ...DEFAULT_BM25, ...options.bm25 });
    this.contextWeight = options.contextWeight ?? DEFAULT_CONTEXT_WEIGHT;
    this.chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    this.chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
    this.defaultMode = this.embedder ? (options.defaultMode ?? 'sparse') : 'sparse';
    this.sessions = new Sessions(this.limits.sessionTtlSeconds * 1000, this.limits.maxSessions, options.now);
    this.coordination = options.coordination;
    this.unsubscribe =
      this.coordination?.subscribe((version) => {
        if (version !== this.manifest.version) this.stale = true;
      }) ?? (() => undefined);
  }

  /** Loads manifest, segments and document meta (never document text). Idempotent. */
  async open(): Promise<void> {
    await this.writeQueue.run(() =>
      this.stateQueue.run(async () => {
        if (this.opened) return;
        const loaded = await this.store.load();
        if (loaded) this.warnings.push(...this.install(loaded, false));
        this.opened = true;
      }),
    );
    this.scheduleReembed();
  }

  /**
   * Settles when the background re-embedding (§15.7) started by `open()` or a reload is done:
   * with the number of segments it rewrote (0 when nothing needed it), or rejected with the error
   * that stopped it (also recorded in `warnings`).
   */
  whenReembedded(): Promise<number> {
    return this.reembedding ?? Promise.resolve(0);
  }

  /**
   * Forget what is in memory at the next use and reload it from the store: call it when the store
   * connection was lost (another tab deleted or upgraded the database).
   */
  invalidate(): void {
    this.stale = this.reset = true;
  }

  /** Stops listening to other engines and stops background re-embedding. The store stays open (its owner closes it). */
  close(): void {
    this.unsubscribe();
    this.background.abort(new RcpError(ErrorCode.Cancelled, 'engine closed'));
  }

  /** The current index version token. */
  get indexVersion(): string {
    return String(this.current().version);
  }

  /** Live document count. */
  get size(): number {
    return this.docs.size;
  }

  /** Counts for status displays; when another engine committed since, a reload starts in the background. */
  stats(): { documents: number; chunks: number; indexVersion: string } {
    if (this.stale && this.opened) this.refresh().catch(() => undefined);
    const v = this.current();
    return { documents: this.docs.size, chunks: v.live, indexVersion: String(v.version) };
  }

  /** Adds or replaces documents (§7.10) in one atomic commit. */
  add(docs: AddDocument[], opts: AddOptions = {}): Promise<AddResult> {
    return this.writeQueue.run(async () => {
      this.assertOpen();
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
        embedder: this.embedder,
        chunk: opts.chunk === true,
        contextual: opts.contextual === true,
        chunkSize: opts.chunkSize ?? this.chunkSize,
        chunkOverlap: opts.chunkOverlap ?? this.chunkOverlap,
        embedBatch: this.limits.embedBatch,
        onProgress: opts.onProgress,
        signal: opts.signal,
      });
      return this.locked(opts.signal, async () => {
        if (key !== undefined && this.coordination) {
          const prior = await this.store.getIdempotent(key); // another engine may have applied it meanwhile
          if (prior !== undefined) return prior as AddResult;
        }
        this.checkRoom(effective);
        const plan = planWrite(this.current(), this.docs, this.manifest, prepared.docs, [], {
          analyzerId: this.analyzer.id,
          contextWeight: this.contextWeight,
          maxSegments: this.limits.maxSegments,
          dense: prepared.dense,
        });
        const result: AddResult = { ids, chunks: prepared.chunks, indexVersion: String(plan.view.version) };
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
      checkAborted(opts.signal);
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalidParams('ids', 'must be an array of strings');
      return this.locked(opts.signal, async () => {
        const current = this.current();
        const present = [...new Set(ids)].filter((id) => this.docs.has(id));
        if (present.length === 0) return { deleted: 0, indexVersion: String(current.version) };
        const plan = planWrite(current, this.docs, this.manifest, [], present, {
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
      checkAborted(opts.signal);
      return this.locked(opts.signal, async () => {
        const deleted = this.docs.size;
        const m = this.manifest;
        const next: Manifest = { version: m.version + 1, nextChunkKey: m.nextChunkKey, nextSegmentId: m.nextSegmentId, segmentIds: [], tombstones: [] };
        await this.store.clear(next);
        this.manifest = next;
        this.views = [makeView(next.version, [], [])];
        this.docs = new Map();
        this.sortedIds = undefined;
        this.coordination?.announce(next.version);
        return { deleted, indexVersion: String(next.version) };
      });
    });
  }

  /** A page of live documents sorted by id (UTF-16 code-unit order), from memory only: no text is read. */
  async documents(offset = 0, limit = DEFAULT_DOCUMENT_PAGE): Promise<DocumentPage> {
    this.assertOpen();
    await this.refresh();
    const ids = (this.sortedIds ??= [...this.docs.keys()].sort());
    const page = ids.slice(offset, offset + limit).map((id) => this.docs.get(id)!);
    return { documents: summarize(this.current(), page), total: ids.length };
  }

  /** One live document with its text and chunk ranges, or undefined when there is none with this id. */
  async document(id: string): Promise<DocumentDetail | undefined> {
    this.assertOpen();
    await this.refresh();
    return readDocument(this.store, id);
  }

  /** Runs a retrieve (§7.7) over the current or a pinned/cursor version. */
  async retrieve(params: RetrieveParams, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
    this.assertOpen();
    await this.refresh();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.retrieveOnce(params, ctx);
      } catch (e) {
        if (!(e instanceof DocumentRewritten)) throw e;
        // A cursor names a snapshot whose text is gone: that cursor has expired (§10, -32015).
        if (params.cursor !== undefined) throw new RcpError(ErrorCode.NotFound, 'cursor expired', { field: 'cursor', detail: e.data?.detail });
        // A pinned version is served or refused, never another (§7.7.1).
        if (params.indexVersion !== undefined || attempt >= 3) throw e;
        // Unpinned: a write (here or in another tab) committed while this query ran. Catch up, run again.
        this.stale = true;
        await this.refresh();
      }
    }
  }

  private retrieveOnce(params: RetrieveParams, ctx: RetrieveContext): Promise<RetrieveResult> {
    return runRetrieve(
      {
        analyzer: this.analyzer,
        bm25: this.bm25,
        embedder: this.embedder,
        rerankers: this.rerankers,
        store: this.store,
        fields: this.fields,
        caps: this.gateCapabilities(),
        sessions: this.sessions,
        viewAt: (v) => this.views.find((x) => x.version === v),
        current: () => this.current(),
        defaultMode: this.defaultMode,
      },
      params,
      ctx,
    );
  }

  /** What this engine serves (§6): dense/hybrid only with an embedder, scoreFloor only when known. */
  capabilities(): EngineCapabilities {
    return engineCapabilities({
      embedder: this.embedder,
      rerankers: this.rerankers,
      limits: this.limits,
      fields: this.fields,
      defaultMode: this.defaultMode,
    });
  }

  /** Capabilities for the engine's own gating: its part plus `embed` (stored vectors can be returned). */
  private gateCapabilities(): Capabilities {
    const caps: Capabilities = this.capabilities();
    const e = this.embedder;
    if (e) caps.embed = { dimension: e.dimension, identity: e.identity, normalized: e.normalized, encodings: ['json', 'f32-base64'] };
    return caps;
  }

  private current(): IndexView {
    return this.views[this.views.length - 1];
  }

  /** Makes a committed write current and announces it to the other engines. */
  private publish(plan: PlannedWrite): void {
    this.manifest = plan.change.manifest;
    plan.applyDocs(this.docs);
    this.sortedIds = undefined;
    this.retain(plan.view);
    this.coordination?.announce(plan.view.version);
  }

  private retain(view: IndexView): void {
    this.views.push(view);
    while (this.views.length > this.limits.retainVersions) this.views.shift();
  }

  /**
   * Replaces the in-memory state with what the store holds. A reload is a new version: older
   * versions stay pinnable only when the store moved forward from ours; otherwise (the database
   * was replaced, `keep` false) they are dropped and pins on them are -32010. Returns load warnings.
   */
  private install(loaded: LoadedIndex | undefined, keep: boolean): string[] {
    const { view, docs, warnings } = loaded
      ? loadViews(loaded, this.analyzer.id, this.embedder)
      : { view: makeView(0, [], []), docs: new Map<string, DocEntry>(), warnings: [] };
    if (keep && view.version > this.current().version) this.retain(view);
    else this.views = [view];
    this.manifest = loaded?.manifest ?? EMPTY_MANIFEST;
    this.docs = docs;
    this.sortedIds = undefined;
    return warnings;
  }

  /**
   * Catches up with the store when another engine may have written. Must run inside `stateQueue`
   * (never concurrently with a write's planning). Without coordination it reads nothing unless
   * the engine was invalidated.
   */
  private async sync(): Promise<void> {
    if (!this.coordination && !this.stale) return;
    const reset = this.reset;
    // Cleared first: an announcement that arrives while we read marks the engine stale again.
    this.stale = this.reset = false;
    try {
      if (!reset) {
        const stored = await this.store.readManifest();
        if ((stored?.version ?? 0) === this.manifest.version) return;
      }
      this.install(await this.store.load(), !reset);
    } catch (e) {
      this.stale = true;
      this.reset ||= reset;
      throw e;
    }
    this.scheduleReembed();
  }

  /** Before a read: reloads first when another engine committed since (lazily, not on every message). */
  private refresh(): Promise<void> {
    return this.stale ? this.stateQueue.run(() => this.sync()) : Promise.resolve();
  }

  /**
   * Runs a write's planning and commit under the cross-engine write lock, on up-to-date state and
   * with the in-memory state to itself.
   */
  private locked<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const run = (): Promise<T> =>
      this.stateQueue.run(async () => {
        await this.sync();
        checkAborted(signal);
        return fn();
      });
    return this.coordination ? this.coordination.withLock(LOCKS.write, run, signal) : run();
  }

  /**
   * Starts re-embedding, in the background, the segments whose vectors the embedder cannot use
   * (another identity or dimension, or none), unless a pass is already running (it re-checks the
   * view after every segment). With coordination only one engine re-embeds at a time; the others
   * find the work done when they get the lock.
   */
  private scheduleReembed(): void {
    const embedder = this.embedder;
    if (!embedder || this.reembedding || this.background.signal.aborted) return;
    const model = denseModel(embedder);
    if (!this.current().segments.some((seg) => needsVectors(seg, model))) return;
    const pass = (): Promise<number> =>
      runReembedPass({
        embedder,
        store: this.store,
        batch: this.limits.embedBatch,
        signal: this.background.signal,
        sync: () => this.stateQueue.run(async () => (await this.sync(), this.current())),
        replace: (id, dense) =>
          this.locked(undefined, async () => {
            const view = this.current();
            const s = view.segments.findIndex((seg) => seg.id === id);
            if (s < 0 || !needsVectors(view.segments[s], model)) return false;
            const plan = planReembed(view, this.manifest, s, dense);
            await this.store.commit(plan.change);
            this.manifest = plan.change.manifest;
            this.retain(plan.view);
            this.coordination?.announce(plan.view.version);
            return true;
          }),
      });
    const run = (this.coordination ? this.coordination.withLock(LOCKS.reembed, pass, this.background.signal) : pass()).then(
      (n) => {
        this.reembedding = undefined;
        return n;
      },
      (e: unknown) => {
        this.reembedding = undefined;
        this.warnings.push(`re-embedding stopped: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      },
    );
    run.catch(() => undefined);
    this.reembedding = run;
  }

  /** -32013 when adding `docs` would exceed `maxDocuments`. */
  private checkRoom(docs: readonly { id: string }[]): void {
    const max = this.limits.maxDocuments;
    if (max === undefined) return;
    const after = this.docs.size + docs.filter((d) => !this.docs.has(d.id)).length;
    if (after > max) throw new RcpError(ErrorCode.PayloadTooLarge, `index full: ${after} documents > ${max}`, { detail: `at most ${max} documents` });
  }

  private assertOpen(): void {
    if (!this.opened) throw new RcpError(ErrorCode.BackendUnavailable, 'engine not opened', { detail: 'call open() first', retryable: true });
  }

  private mintId(): string {
    const docs = this.docs;
    let id: string;
    do id = `doc-${this.mintPrefix}-${(++this.mintCounter).toString(36)}`;
    while (docs.has(id));
    return id;
  }
}
