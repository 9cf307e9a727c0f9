import type { Capabilities, ConformanceLevel } from './types.ts';

const RETRIEVAL_KEYS = ['embed', 'rerank', 'retrieve', 'graph'] as const;

/**
 * The conformance level (§14) a capability set can honestly claim, by the spec's definitions:
 * L0 = at least one retrieval capability; L1 = retrieve with dense+sparse+hybrid, filter and
 * citations; L2 = L1 plus a selection of the SOTA surfaces of §14.3. Never claims more than the
 * capabilities show, so a declaration computed here cannot overclaim.
 */
export function conformanceOf(caps: Capabilities): ConformanceLevel | undefined {
  if (!RETRIEVAL_KEYS.some((k) => caps[k] !== undefined)) return undefined;
  const modes = caps.retrieve?.modes ?? [];
  const l1 =
    ['dense', 'sparse', 'hybrid'].every((m) => modes.includes(m as never)) &&
    caps.filter !== undefined &&
    (caps.citations !== undefined || caps.retrieve?.citations === true);
  if (!l1) return 'L0';
  const sota = [
    caps.rerank,
    caps.multiVector,
    caps.sparseEmbed,
    caps.transform,
    caps.graph,
    caps.streaming,
    caps.pagination,
    caps.log,
    caps.retrieve?.deterministic || caps.retrieve?.snapshots ? {} : undefined,
  ].filter((c) => c !== undefined).length;
  return sota >= 2 ? 'L2' : 'L1';
}
