/**
 * One `retrieve` of the engine, from its surface to its answer: foreground work (state/foreground.ts)
 * around the cold-start vector read (state/vector-prefetch.ts), after the read prelude
 * (state/reads.ts), with the re-run of an unpinned request a write overtook, and then what the answer
 * tells background embedding (state/embed-order.ts). The pipeline itself is `runRetrieve`
 * (retrieve.ts), over dependencies built once, with the engine's.
 *
 * Guarantees: a pinned or cursor request is served at its version or refused, never another; an
 * unpinned one runs at most three times; `firstAnswer` settles once the first retrieve settled.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { contentText } from '../../protocol/content.ts';
import { RcpError } from '../../protocol/errors.ts';
import type { RetrieveResult } from '../../protocol/types.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { LanguageDetector } from '../analysis/language.ts';
import type { Bm25 } from '../index/bm25.ts';
import type { Embedder, IndexStore } from '../contracts.ts';
import { denseModel } from '../index/dense.ts';
import type { IndexView } from '../index/view.ts';
import type { EarlyVectors } from '../state/early-vectors.ts';
import type { EmbedOrder } from '../state/embed-order.ts';
import type { ReadGate } from '../state/reads.ts';
import { needsVectors } from '../state/reembed.ts';
import type { Residency } from '../state/residency.ts';
import type { DocumentReader } from '../state/text-cache.ts';
import type { VectorPrefetch } from '../state/vector-prefetch.ts';
import type { Sessions } from './dedup-sessions.ts';
import { DocumentRewritten } from './hits.ts';
import { absentLanguageGate, type LanguageProfiles } from './language-gate.ts';
import type { RetrievePlan } from './plan.ts';
import { runRetrieve, type RetrieveContext, type RetrieveDeps } from './retrieve.ts';
import type { FilterFieldType } from '../../protocol/types.ts';

/** Runs of one unpinned request when writes keep committing under it. */
const MAX_ATTEMPTS = 3;

/** The part of IndexState a retrieve reads. */
export interface RetrieveState {
  readonly residency: Residency | undefined;
  refresh(): Promise<void>;
  markStale(): void;
  current(): IndexView;
  viewAt(version: number): IndexView | undefined;
  vectorsLoaded(): Promise<void>;
}

export interface RetrieverOptions {
  analyzer: Analyzer;
  bm25: Bm25;
  embedder?: Embedder;
  store: Pick<IndexStore, 'partial' | 'getChunks'>;
  state: RetrieveState;
  early: EarlyVectors;
  texts: DocumentReader;
  fields: Readonly<Record<string, FilterFieldType>>;
  sessions: Sessions;
  /** With a cross-lingual embedder: the detector and profiles of the query-language gate (language-gate.ts). */
  languages?: { detect: () => Promise<LanguageDetector>; profiles: LanguageProfiles };
  reads: Pick<ReadGate, 'ready' | 'track'>;
  prefetch: Pick<VectorPrefetch, 'around'>;
  /** Present while background embedding runs: the order a retrieve tells what to embed first. */
  order?: EmbedOrder;
}

/** What the graph's seed retrieves use: a retrieve inside a request already tracked. */
export interface SeedRetrieve {
  run(plan: RetrievePlan, ctx: RetrieveContext): Promise<RetrieveResult>;
}

export class Retriever implements SeedRetrieve {
  private readonly deps: RetrieveDeps;
  private answeredFirst!: () => void;
  private readonly firstAnswered = new Promise<void>((resolve) => (this.answeredFirst = resolve));

  constructor(private readonly o: RetrieverOptions) {
    const { store, state, embedder } = o;
    const partial = store.partial;
    this.deps = {
      analyzer: o.analyzer,
      bm25: o.bm25,
      embedder,
      readChunks: partial ? (keys) => partial.readFine(keys) : (keys) => store.getChunks(keys),
      vectorsLoaded: () => state.vectorsLoaded(),
      early: o.early,
      residency: state.residency,
      // Not over a store read on demand (a bundle): its term dictionary is not all in memory.
      absentLanguage: embedder?.crossLingual && o.languages && !state.residency ? absentLanguageGate(o.languages.detect, (t) => o.analyzer.queryTerms(t), o.languages.profiles) : undefined,
      texts: o.texts,
      fields: o.fields,
      sessions: o.sessions,
      viewAt: (v) => state.viewAt(v),
      current: () => state.current(),
    };
  }

  /** A retrieve of the engine's surface (§7.7), as planned by `planRetrieve` (src/server/retrieve-plan.ts). */
  retrieve(plan: RetrievePlan, ctx: RetrieveContext = {}): Promise<RetrieveResult> {
    const run = this.o.reads.track(() =>
      this.o.prefetch.around(async () => {
        const result = await this.run(plan, ctx);
        this.noteSearch(plan, result);
        return result;
      }),
    );
    const answered = () => this.answeredFirst();
    run.then(answered, answered);
    return run;
  }

  /** Settles once the first retrieve has settled (its answer is on its way). */
  firstAnswer(): Promise<void> {
    return this.firstAnswered;
  }

  /** The retrieve without tracking or notes: the prelude, then the pipeline, re-run when a write overtook it. */
  async run(plan: RetrievePlan, ctx: RetrieveContext): Promise<RetrieveResult> {
    await this.o.reads.ready();
    const { params } = plan;
    for (let attempt = 1; ; attempt++) {
      try {
        return await runRetrieve(this.deps, plan, ctx);
      } catch (e) {
        if (!(e instanceof DocumentRewritten)) throw e;
        // A cursor names a snapshot whose text is gone: that cursor has expired (§10, -32015).
        if (params.cursor !== undefined) throw new RcpError(ErrorCode.NotFound, 'cursor expired', { field: 'cursor', detail: e.data?.detail });
        // A pinned version is served or refused, never another (§7.7.1).
        if (params.indexVersion !== undefined || attempt >= MAX_ATTEMPTS) throw e;
        // Unpinned: a write (here or in another tab) committed while this query ran. Catch up, run again.
        this.o.state.markStale();
        await this.o.state.refresh();
      }
    }
  }

  /** While chunks wait for vectors: the query's sparse top hits and its hits' documents go first. */
  private noteSearch(plan: RetrievePlan, result: RetrieveResult): void {
    const { order, embedder } = this.o;
    if (!order || !embedder) return;
    const model = denseModel(embedder);
    order.noteSearch({
      view: this.o.state.current(),
      waiting: (seg) => needsVectors(seg, model),
      analyzer: this.o.analyzer,
      bm25: this.o.bm25,
      query: contentText(plan.params.query),
      hits: result.hits,
    });
  }
}
