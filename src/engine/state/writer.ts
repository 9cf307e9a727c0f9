/**
 * The engine's one writer: the load at `open`, `add`, `delete`, `clear` and the writes that change
 * only the manifest (a quarantine, its restore from an index file, a release). Each commits as ONE
 * atomic `Change` through the store before it is published, and what a write invalidates (cached
 * texts, early vectors, the passage graph, the re-embedding pass) is told after it is current.
 *
 * Lock order, the same for every write, so two engines over one store never deadlock:
 *   1. this writer's queue (`SerialQueue`): this engine's writes one at a time, in call order,
 *      their preparation (analysis, embedding) included;
 *   2. `IndexState.locked`: the cross-engine write lock (with a Coordination), then the state's own
 *      queue, on a view synced with the store and its vectors in memory. Only planning and commit
 *      run there. (`open` takes `IndexState.exclusive` instead: nothing to sync before the load.)
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError, invalidParams } from '../../protocol/errors.ts';
import { checkAborted } from '../../util/abort.ts';
import { SerialQueue } from '../../util/serial-queue.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { LanguageDetector } from '../analysis/language.ts';
import type { EngineLimits } from '../config.ts';
import type { Embedder, IndexStore, Manifest, QuarantineEntry } from '../contracts.ts';
import type { AddOptions, AddResult, DeleteResult } from '../engine-options.ts';
import { ModelUnavailableError } from '../errors.ts';
import { quarantined, released, restoredQuarantine } from '../feedback/quarantine.ts';
import type { QuarantineWriter } from '../feedback/service.ts';
import { checkAddDocuments, prepareDocuments, type AddDocument, type PresetVectors } from '../index/prepare.ts';
import { unchangedIds, withoutDocs } from '../index/unchanged.ts';
import { makeView } from '../index/view.ts';
import { planWriteSliced, type PlannedWrite } from '../index/write-plan.ts';
import type { IndexState } from './index-state.ts';

/** What a published write invalidates; each is told after the write is current. */
export interface WriteFollowers {
  /** Cached hit texts (cleared with the index). */
  texts: { clear(): void };
  /** Vectors embedded ahead of their segment's commit (cleared with the index). */
  early: { clear(): void };
  /** The passage graph: refreshed after a write, dropped with the index. */
  graphs: { changed(): void; reset(): void };
  /** The background re-embedding pass: a segment a failed pass left behind is retried after a write. */
  reembed?: { schedule(afterWrite: boolean): void };
}

export interface WriterDeps {
  store: IndexStore;
  state: IndexState;
  /** Whether the engine is open (`open` marks it). */
  gate: { readonly opened: boolean; assertOpen(): void; markOpen(): void };
  analyzer: Analyzer;
  /** The running encoder: preset vectors are reused only when they are its own. */
  embedder?: Embedder;
  /** Vectors are written by the background pass, not by `add` (slow encoders; sparse sees text at once). */
  embedInBackground: boolean;
  /** True when the store takes no writes (EngineOptions.readOnly). */
  readOnly: boolean;
  detectLanguage?: () => Promise<LanguageDetector>;
  limits: Readonly<EngineLimits>;
  contextWeight: number;
  chunkSize: number;
  chunkOverlap: number;
  /** With one, another engine may apply an idempotent add while this one prepares it. */
  coordinated: boolean;
  now(): number;
  followers: WriteFollowers;
}

export class IndexWriter implements QuarantineWriter {
  /** Writes, one at a time in call order (preparation included): lock 1 above. */
  private readonly queue = new SerialQueue();
  private mintCounter = 0;
  private readonly mintPrefix = Math.random().toString(36).slice(2, 8);

  constructor(private readonly deps: WriterDeps) {}

  /**
   * Loads the store once, first in line: `loaded` runs inside the load's exclusive section (so what
   * it records precedes any write) and only for the call that loaded.
   */
  open(loaded: (result: { warnings: string[]; missing: string[] }) => void): Promise<void> {
    const { state, gate } = this.deps;
    return this.queue.run(() =>
      state.exclusive(async () => {
        if (gate.opened) return;
        const result = await state.load();
        gate.markOpen();
        loaded(result);
      }),
    );
  }

  /** Adds or replaces documents (§7.10) in one atomic commit. */
  add(docs: AddDocument[], opts: AddOptions = {}): Promise<AddResult> {
    return this.queue.run(async () => {
      this.assertWritable(opts.signal);
      const { store, state, analyzer, limits } = this.deps;
      checkAddDocuments(docs, limits.maxDocumentsPerAdd);
      const key = opts.idempotencyKey;
      if (key !== undefined) {
        const prior = await store.getIdempotent(key);
        if (prior !== undefined) return prior as AddResult;
      }
      const ids = docs.map((d) => d.id ?? this.mintId());
      // Duplicates of one id inside the batch: the last wins.
      const last = new Map(ids.map((id, i) => [id, i]));
      const effective = ids.flatMap((id, i) => (last.get(id) === i ? [{ ...docs[i], id }] : []));
      this.checkRoom(effective);
      // Analysis and embedding run outside the cross-engine lock; only planning and commit hold it.
      const language = await this.deps.detectLanguage?.();
      const inline = this.deps.embedInBackground ? undefined : this.deps.embedder;
      const prepare = (embedder: Embedder | undefined) => prepareDocuments(effective, {
        analyzer,
        language,
        embedder,
        preset: this.usablePreset(opts.vectors),
        chunk: opts.chunk === true,
        contextual: opts.contextual === true,
        chunkSize: opts.chunkSize ?? this.deps.chunkSize,
        chunkOverlap: opts.chunkOverlap ?? this.deps.chunkOverlap,
        embedBatch: limits.embedBatch,
        onProgress: opts.onProgress,
        signal: opts.signal,
      });
      // A model that cannot load now does not refuse the write: it is stored for sparse search, and
      // the background pass (background-reembed.ts) embeds it once the model loads.
      const prepared = await prepare(inline).catch((e: unknown) => {
        if (!inline || !(e instanceof ModelUnavailableError)) throw e;
        return prepare(undefined);
      });
      return state.locked(opts.signal, async () => {
        if (key !== undefined && this.deps.coordinated) {
          const prior = await store.getIdempotent(key); // another engine may have applied it meanwhile
          if (prior !== undefined) return prior as AddResult;
        }
        this.checkRoom(effective);
        const view = state.current();
        // §7.10: a document re-added exactly as stored is not rewritten (see unchanged.ts).
        const identity = prepared.dense?.identity;
        const oneAnalysis = view.segments.every((g) => g.lex.analyzer === analyzer.id && g.lex.contextWeight === this.deps.contextWeight && (identity === undefined || g.record.dense?.identity === identity));
        const todo = oneAnalysis ? withoutDocs(prepared, await unchangedIds(store, state.docs, prepared.docs)) : prepared;
        if (todo.docs.length === 0) return { ids, chunks: prepared.chunks, indexVersion: String(view.version), ...(opts.vectors ? { vectorsReused: prepared.reused ?? 0 } : {}) };
        const plan = await planWriteSliced(view, state.docs, state.manifest, todo.docs, [], { ...this.analysis(), dense: todo.dense });
        const result: AddResult = { ids, chunks: prepared.chunks, indexVersion: String(plan.view.version) };
        if (opts.vectors) result.vectorsReused = prepared.reused ?? 0;
        if (key !== undefined) plan.change.idempotency = { key, result };
        checkAborted(opts.signal);
        await store.commit(plan.change);
        this.publish(plan);
        return result;
      });
    });
  }

  /** Deletes documents by id (§7.11); idempotent, counts only documents actually removed. */
  delete(ids: string[], opts: { signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.queue.run(async () => {
      this.assertWritable(opts.signal);
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalidParams('ids', 'must be an array of strings');
      const { state } = this.deps;
      return state.locked(opts.signal, async () => {
        const current = state.current();
        const present = [...new Set(ids)].filter((id) => state.docs.has(id));
        if (present.length === 0) return { deleted: 0, indexVersion: String(current.version) };
        const plan = await planWriteSliced(current, state.docs, state.manifest, [], present, this.analysis());
        await this.deps.store.commit(plan.change);
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
    return this.queue.run(async () => {
      this.assertWritable(opts.signal);
      const { state, followers } = this.deps;
      return state.locked(opts.signal, async () => {
        const deleted = state.docs.size;
        // Everything goes, the quarantine list with the documents it names.
        const { quarantine: _gone, ...m } = state.manifest;
        const version = m.version + 1;
        const next: Manifest = { ...m, version, segmentIds: [], tombstones: [], chunkless: 0, documents: 0, clearedAt: version };
        await this.deps.store.clear(next);
        state.publishCleared(next);
        followers.texts.clear();
        followers.early.clear();
        followers.graphs.reset();
        return { deleted, indexVersion: String(next.version) };
      });
    });
  }

  /** Quarantines documents (feedback's integrity signals); returns those not already in quarantine. */
  async quarantine(add: ReadonlyMap<string, QuarantineEntry['reasons']>, signal?: AbortSignal): Promise<string[]> {
    const before = new Set((this.deps.state.manifest.quarantine ?? []).map((e) => e.id));
    await this.manifestWrite((m) => quarantined(m, add, this.deps.now()), signal);
    return [...add.keys()].filter((id) => !before.has(id));
  }

  /** Puts back the quarantine an index file carried (its reasons and times). */
  async restoreQuarantine(held: readonly QuarantineEntry[], signal?: AbortSignal): Promise<void> {
    this.deps.gate.assertOpen();
    if (held.length) await this.manifestWrite((m) => restoredQuarantine(m, held), signal);
  }

  /** Takes documents out of quarantine (a new version when any was in it); returns how many were. */
  async release(ids: readonly string[], signal?: AbortSignal): Promise<{ released: number; indexVersion: string }> {
    this.deps.gate.assertOpen();
    let count = 0;
    const indexVersion = await this.manifestWrite((m) => {
      const held = new Set((m.quarantine ?? []).map((e) => e.id));
      count = new Set(ids.filter((id) => held.has(id))).size;
      return released(m, ids);
    }, signal);
    return { released: count, indexVersion };
  }

  /**
   * A write that changes only the manifest: one atomic commit of the next manifest under the write
   * lock, published as a new version over the same segments (`next` returns undefined: no change).
   */
  private manifestWrite(next: (m: Manifest) => Manifest | undefined, signal?: AbortSignal): Promise<string> {
    const { state, store, followers } = this.deps;
    return this.queue.run(() =>
      state.locked(signal, async () => {
        const m = next(state.manifest);
        if (!m) return String(state.manifest.version);
        const v = state.current();
        const view = makeView(m.version, [...v.segments], [...v.dead]);
        await store.commit({ putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest: m });
        state.publish(m, view);
        followers.graphs.changed();
        return String(m.version);
      }),
    );
  }

  /** Makes a committed write current; a segment a failed re-embedding pass left behind is retried. */
  private publish(plan: PlannedWrite): void {
    this.deps.state.publish(plan.change.manifest, plan.view, plan.applyDocs);
    this.deps.followers.reembed?.schedule(true);
    this.deps.followers.graphs.changed();
  }

  /** How this engine analyses: a segment written otherwise is merged only by rewriting it. */
  private analysis(): { analyzerId: string; contextWeight: number; maxSegments: number } {
    return { analyzerId: this.deps.analyzer.id, contextWeight: this.deps.contextWeight, maxSegments: this.deps.limits.maxSegments };
  }

  /** Open, writable, not aborted: what every content write checks first. */
  private assertWritable(signal: AbortSignal | undefined): void {
    this.deps.gate.assertOpen();
    // -32003 for a write to a read-only engine (the server never advertises `index` for one).
    if (this.deps.readOnly) throw new RcpError(ErrorCode.CapabilityMissing, 'the index is read-only', { detail: 'a bundle is read-only: rebuild it with `rcp-in-page index`' });
    checkAborted(signal);
  }

  /** Given vectors are reused only when they come from the model running now (same identity and dimension). */
  private usablePreset(v: PresetVectors | undefined): PresetVectors | undefined {
    const e = this.deps.embedder;
    return v && e && v.identity === e.identity && v.dimension === e.dimension ? v : undefined;
  }

  /** -32013 when adding `docs` would exceed `maxLiveDocuments`. */
  private checkRoom(docs: readonly { id: string }[]): void {
    const max = this.deps.limits.maxLiveDocuments;
    if (max === undefined) return;
    const live = this.deps.state.docs;
    const after = live.size + docs.filter((d) => !live.has(d.id)).length;
    if (after > max) throw new RcpError(ErrorCode.PayloadTooLarge, `index full: ${after} documents > ${max}`, { detail: `at most ${max} documents` });
  }

  private mintId(): string {
    const docs = this.deps.state.docs;
    let id: string;
    do id = `doc-${this.mintPrefix}-${(++this.mintCounter).toString(36)}`;
    while (docs.has(id));
    return id;
  }
}
