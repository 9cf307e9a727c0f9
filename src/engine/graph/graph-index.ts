/**
 * The passage graph kept for the current index version: dense neighbour lists maintained
 * incrementally (knn.ts) across versions, and the graph, its term table and its communities
 * rebuilt from them for each version that a graph request (or the background refresh) needs. One
 * build runs at a time; requests for the version being built wait for it.
 */
import type { DenseModel } from '../index/dense.ts';
import type { IndexView } from '../index/view.ts';
import { checkAborted } from '../../util/abort.ts';
import { detectCommunities, type CommunityLevels } from './communities.ts';
import { DenseNeighbors } from './knn.ts';
import { graphNodes, termTable, type TermTable } from './nodes.ts';
import { buildPassageGraph, type PassageGraph } from './passage-graph.ts';

export interface BuiltGraph {
  version: number;
  graph: PassageGraph;
  terms: TermTable;
  /** Milliseconds the last build took (neighbour lists included), for `usage`. */
  buildMs: number;
  /** Neighbour lists computed by that build (0 when every passage already had one). */
  computed: number;
}

export interface GraphIndexDeps {
  /** The dense model, when there is one: without it the graph has adjacency and rare-term edges only. */
  model?: DenseModel;
  /** True for an index term that is a stopword (left out of community labels). */
  isStopTerm(term: string): boolean;
}

export class GraphIndex {
  readonly knn = new DenseNeighbors();
  private built: BuiltGraph | undefined;
  private building: { version: number; done: Promise<BuiltGraph> } | undefined;
  private communityCache: { version: number; levels: Promise<CommunityLevels> } | undefined;

  constructor(private readonly deps: GraphIndexDeps) {}

  /**
   * The graph of `view` (built now when needed), without the documents in `skip`. A build is
   * shared by every request for its version and is not stopped by one request's cancellation
   * (that request alone stops waiting); the result serves the next request.
   */
  async at(view: IndexView, skip: ReadonlySet<string>, signal?: AbortSignal): Promise<BuiltGraph> {
    for (;;) {
      if (this.built?.version === view.version) return this.built;
      const b = this.building;
      if (!b) break;
      if (b.version === view.version) return untilAborted(b.done, signal);
      await untilAborted(b.done.catch(() => undefined), signal);
    }
    const entry = { version: view.version, done: this.build(view, skip) };
    this.building = entry;
    entry.done.then(
      () => void (this.building === entry && (this.building = undefined)),
      () => void (this.building === entry && (this.building = undefined)),
    );
    return untilAborted(entry.done, signal);
  }

  /** The last graph built, whatever its version (the background refresh compares). */
  get current(): BuiltGraph | undefined {
    return this.built;
  }

  /** Louvain over the graph of `built`, once per version (a failed run is retried next time). */
  communities(built: BuiltGraph): Promise<CommunityLevels> {
    if (this.communityCache?.version !== built.version) {
      const levels = detectCommunities(built.graph, built.terms, this.deps.isStopTerm);
      const entry = { version: built.version, levels };
      this.communityCache = entry;
      levels.catch(() => void (this.communityCache === entry && (this.communityCache = undefined)));
    }
    return this.communityCache.levels;
  }

  /** Forgets everything (the index was cleared or replaced). */
  reset(): void {
    this.knn.lists.clear();
    this.built = undefined;
    this.communityCache = undefined;
  }

  private async build(view: IndexView, skip: ReadonlySet<string>): Promise<BuiltGraph> {
    const t0 = performance.now();
    const model = this.deps.model;
    const computed = model ? await this.knn.reconcile(view, model) : 0;
    const nodes = graphNodes(view, skip);
    const terms = termTable(view, nodes);
    const graph = buildPassageGraph(nodes, terms, model ? this.knn : undefined);
    const built: BuiltGraph = { version: view.version, graph, terms, buildMs: performance.now() - t0, computed };
    // A newer build may have finished meanwhile: never replace it with an older one.
    if (!this.built || this.built.version <= built.version) this.built = built;
    return built;
  }
}

/** `work`, or the signal's reason as soon as it aborts (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  checkAborted(signal);
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (v) => (signal.removeEventListener('abort', stop), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', stop), reject(e)),
    );
  });
}
