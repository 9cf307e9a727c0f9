/**
 * The engine's `graph` (§7.9): the passage graph of the current version (graph-index.ts), its ops
 * (ops.ts), and a background refresh after writes once the graph has been asked for, so the next
 * request finds it built. Seeds come from the engine's own retrieve, pinned to the graph's version.
 */
import { invalidParams } from '../../protocol/errors.ts';
import type { GraphResult } from '../../protocol/types.ts';
import { checkAborted } from '../../util/abort.ts';
import { NLTK_STOPWORDS } from '../analysis/stopwords.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { Embedder } from '../contracts.ts';
import type { IndexView } from '../index/view.ts';
import type { SeedRetrieve } from '../query/retriever.ts';
import { FOREGROUND_MAX_WAIT_MS, type ForegroundGate } from '../state/foreground.ts';
import { denseModel } from '../index/dense.ts';
import { DocumentRewritten } from '../query/hits.ts';
import type { DocumentReader } from '../state/text-cache.ts';
import type { GraphIndex } from './graph-index.ts';
import type { runGraphOp } from './ops.ts';
import type { GraphPlan } from './plan.ts';

/** The graph's build and ops: imported on the first graph request, not with every engine. */
interface GraphCode {
  index: GraphIndex;
  runGraphOp: typeof runGraphOp;
}

/** The engine's state as the graph reads it (IndexState). */
export interface GraphState {
  refresh(): Promise<void>;
  resident(what: 'everything'): Promise<void>;
  vectorsLoaded(): Promise<void>;
  current(): IndexView;
  /** Marks the view as possibly behind the store (a write of another tab), so the next refresh reads it. */
  markStale(): void;
}

export interface GraphServiceDeps {
  analyzer: Analyzer;
  embedder?: Embedder;
  texts: DocumentReader;
  state: GraphState;
  /** The engine's retrieve for seeds, as planned (query/retriever.ts; no foreground tracking of its own). */
  seeds: SeedRetrieve;
  /** Background refreshes go after the requests a person waits for (state/foreground.ts). */
  foreground: Pick<ForegroundGate, 'idle'>;
}

/** Runs of one request when writes keep committing under it (each run sees a newer version). */
const MAX_ATTEMPTS = 3;

/** After a write, the graph is refreshed this long after the last one (a burst of imports builds once). */
const REFRESH_DELAY_MS = 1000;

const EMPTY: ReadonlySet<string> = new Set();

export class GraphService {
  /**
   * Most engines never build a graph, and a worker that starts in order to answer a first query (a
   * site's search box) should not fetch and compile its ~40 KB: imported on first use.
   */
  private code: Promise<GraphCode> | undefined;
  /** The same, once imported: what `reset` clears (an index not yet made holds nothing). */
  private loaded: GraphCode | undefined;
  private readonly newIndex: (GraphIndexClass: typeof GraphIndex) => GraphIndex;
  private used = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly deps: GraphServiceDeps) {
    // Analysed on the first graph build, not here: the engine is constructed on every cold start.
    let stops: Set<string> | undefined;
    const isStopTerm = (t: string): boolean => (stops ??= new Set(NLTK_STOPWORDS.flatMap((w) => deps.analyzer.indexTerms(w)))).has(t);
    const model = deps.embedder && denseModel(deps.embedder);
    this.newIndex = (GraphIndexClass) => new GraphIndexClass({ model, isStopTerm });
  }

  private graphCode(): Promise<GraphCode> {
    return (this.code ??= Promise.all([import('./graph-index.ts'), import('./ops.ts')]).then(([g, o]) => (this.loaded = { index: this.newIndex(g.GraphIndex), runGraphOp: o.runGraphOp })));
  }

  /**
   * A graph request names no version, so a write that commits while it runs (its passages' texts
   * are then gone from the graph's snapshot) is not the client's error: the op runs again on the
   * new version, as an unpinned retrieve does.
   */
  async run(plan: GraphPlan, signal?: AbortSignal): Promise<GraphResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(plan, signal);
      } catch (e) {
        if (!(e instanceof DocumentRewritten) || attempt >= MAX_ATTEMPTS) throw e;
        this.deps.state.markStale();
      }
    }
  }

  private async runOnce(plan: GraphPlan, signal?: AbortSignal): Promise<GraphResult> {
    const t0 = performance.now();
    this.used = true;
    const { index, runGraphOp } = await this.graphCode();
    const view = await this.currentView();
    const skipped = view.quarantined ?? EMPTY;
    const built = await index.at(view, skipped, signal);
    const result = await runGraphOp(plan, {
      built,
      communities: () => index.communities(built),
      texts: this.deps.texts,
      analyzer: this.deps.analyzer,
      skipped,
      signal,
      seedHits: async (query, k, sig) => {
        const params = { query, k, indexVersion: String(view.version), includeText: false };
        // The session's default mode, served sparse (as any request naming none) while dense is not ready.
        const r = await this.deps.seeds.run({ params, k, candidateK: k, mode: plan.seedMode, modeDefaulted: true, notes: [] }, { signal: sig });
        return r.hits.map((h) => ({ id: String(h.id), score: h.score }));
      },
    });
    const notes = [...plan.notes, ...(result.usage?.notes ?? [])];
    if (skipped.size > 0) notes.push(`${skipped.size} quarantined document${skipped.size === 1 ? ' is' : 's are'} left out of the graph`);
    result.indexVersion = String(view.version);
    result.usage = { ...result.usage, latencyMs: Math.round((performance.now() - t0) * 100) / 100, ...(notes.length ? { notes } : {}) };
    result._meta = { ...result._meta, graph: { passages: built.graph.nodes.ids.length, edges: built.graph.edges, buildMs: Math.round(built.buildMs) } };
    return result;
  }

  /**
   * The community at `level` of each passage id, in the graph of the current version (built and
   * partitioned now when needed): what a map colours its dots by. Ids not in the graph (a
   * quarantined document) are left out; a level this version lacks is -32602 naming `field`.
   */
  async communityOf(ids: readonly string[], level: number, field: string, signal?: AbortSignal): Promise<{ of: Map<string, string>; indexVersion: string }> {
    this.used = true;
    const { index } = await this.graphCode();
    const view = await this.currentView();
    const built = await index.at(view, view.quarantined ?? EMPTY, signal);
    const levels = await index.communities(built);
    checkAborted(signal);
    const of = new Map<string, string>();
    if (levels.levels.length === 0) return { of, indexVersion: String(view.version) };
    const list = levels.levels[level];
    if (!list) throw invalidParams(field, `this index has community levels 0..${levels.levels.length - 1}`);
    const byId = built.graph.nodes.byId;
    for (const id of ids) {
      const node = byId.get(id);
      if (node !== undefined) of.set(id, list[levels.of[level][node]].id);
    }
    return { of, indexVersion: String(view.version) };
  }

  /** A write was published: once the graph is in use, rebuild it in the background (debounced). */
  changed(): void {
    if (!this.used || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** The index was cleared: nothing of the old graph applies. */
  reset(): void {
    this.loaded?.index.reset();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** The current view once its vectors are in memory. */
  private async currentView(): Promise<IndexView> {
    const { state } = this.deps;
    await state.refresh();
    await state.resident('everything');
    await state.vectorsLoaded();
    return state.current();
  }

  private async refresh(): Promise<void> {
    try {
      await this.deps.foreground.idle(FOREGROUND_MAX_WAIT_MS);
      if (this.closed) return;
      const { index } = await this.graphCode();
      const view = await this.currentView();
      await index.at(view, view.quarantined ?? EMPTY);
    } catch {
      // A background refresh that fails (a store error) is retried by the next request.
    }
  }
}
