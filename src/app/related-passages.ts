/**
 * "Related passages" in the document panel: the open passage's neighbours in the engine's passage
 * graph (RCP `graph`, op `neighbors`, one hop, with their text), each saying why it is linked —
 * close in meaning (dense neighbours), next to it in its document, or sharing rare words — and
 * opening in the panel on a click. Shown only when the engine serves `neighbors`.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { GraphEdge, GraphNode } from '../protocol/types.ts';
import { byId } from './dom.ts';
import { errorView } from './errors.ts';
import type { HitTarget } from './hits-view.ts';
import { passageItems, type ListedPassage } from './passage-list.ts';

/** Neighbours listed. */
export const RELATED_K = 8;

const KIND_WORDS: Readonly<Record<string, string>> = Object.freeze({
  dense: 'close in meaning',
  adjacent: 'next to it in the document',
  terms: 'shares rare words',
});

/** Why an edge links two passages, in words ("close in meaning (0.82), shares rare words"). */
export function edgeReason(edge: Pick<GraphEdge, 'weight'> & { 'x-inpage-kinds'?: unknown }): string {
  const kinds = Array.isArray(edge['x-inpage-kinds']) ? edge['x-inpage-kinds'].filter((k): k is string => typeof k === 'string') : [];
  return kinds.map((k) => KIND_WORDS[k] ?? k).join(', ') || `linked (weight ${edge.weight.toFixed(2)})`;
}

export interface RelatedPassages {
  show(target: HitTarget): void;
  hide(): void;
}

export function mountRelatedPassages(client: RcpClient, open: (t: HitTarget, opener: HTMLElement) => void): RelatedPassages {
  const section = byId('doc-related');
  const list = byId<HTMLOListElement>('doc-related-list');
  const status = byId('doc-related-status');
  const served = client.capabilities?.graph?.ops.includes('neighbors') === true;
  let inflight: AbortController | undefined;

  const hide = () => {
    inflight?.abort();
    section.hidden = true;
    list.replaceChildren();
  };

  const show = async (target: HitTarget) => {
    hide();
    if (!served) return;
    section.hidden = false;
    if (target.hitId === undefined) {
      status.textContent = 'Open a result to see the passages related to it.';
      return;
    }
    const ctrl = new AbortController();
    inflight = ctrl;
    status.textContent = 'Finding related passages in the engine’s passage graph…';
    try {
      const seed = target.hitId;
      const r = await client.request('graph', { op: 'neighbors', seedIds: [seed], hops: 1, k: RELATED_K, _meta: { 'x-inpage-text': true } }, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      const nodes = (r.nodes ?? []).filter((n) => n['x-inpage-kind'] === 'passage' && n['x-inpage-seed'] !== true);
      const edgeTo = new Map<string, GraphEdge>();
      for (const e of r.edges ?? []) {
        if (e.src === seed) edgeTo.set(e.dst, e);
        else if (e.dst === seed) edgeTo.set(e.src, e);
      }
      list.replaceChildren(...passageItems(nodes.map(listed), open, (p) => (edgeTo.has(p.id) ? edgeReason(edgeTo.get(p.id)!) : '')));
      status.textContent = nodes.length ? '' : 'No passage is linked to this one.';
    } catch (e) {
      if (ctrl.signal.aborted) return;
      // A passage the graph does not hold (quarantined, or gone since the results came) is named by -32602.
      if (e instanceof RcpError && e.code === ErrorCode.InvalidParams && e.data?.field === 'seedIds[0]') status.textContent = `No related passages: ${String(e.data.detail ?? 'the graph does not hold this passage')}.`;
      else status.replaceChildren(errorView(e, 'Could not find related passages'));
    } finally {
      if (inflight === ctrl) inflight = undefined;
    }
  };

  return { show: (t) => void show(t), hide };
}

/** A `neighbors` passage node as a list item. */
function listed(n: GraphNode): ListedPassage {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { id: n.id, doc: str(n['x-inpage-doc']) ?? n.id, title: str(n['x-inpage-title']), start: num(n['x-inpage-start']), end: num(n['x-inpage-end']), text: str(n['x-inpage-text']) };
}
