/**
 * A `graph` request as the engine carries it out: validated, gated and bounded at the server's
 * front door (src/protocol/validate-graph.ts) against the bounds advertised here, so the engine
 * does not check it again.
 */
import type { ValidatedGraph } from '../../protocol/validate-graph.ts';

export type GraphPlan = ValidatedGraph;
export type GraphOpName = GraphPlan['op'];

/** The ops served: every one but `drift`, whose follow-up questions need a language model. */
export const GRAPH_OPS_SERVED: readonly GraphOpName[] = Object.freeze(['neighbors', 'local', 'communities', 'global']);

/** The bounds advertised in `graph` (`maxHops`, `maxK`, `maxSeeds`) and enforced by the front door. */
export const GRAPH_LIMITS = Object.freeze({
  maxHops: 3,
  maxK: 200,
  maxSeeds: 50,
  /** `neighbors` returns at most this many nodes, however many hops and seeds. */
  maxNodes: 1000,
});

/**
 * The `graph` capability (§6): every op but `drift`, whose follow-up questions need a language
 * model. Without an embedder the graph has no dense edges, only adjacency and shared rare terms —
 * still a graph, so still served.
 */
export const graphCapability = () => ({ ops: [...GRAPH_OPS_SERVED], maxHops: GRAPH_LIMITS.maxHops, maxK: GRAPH_LIMITS.maxK, maxSeeds: GRAPH_LIMITS.maxSeeds });
