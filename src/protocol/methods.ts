import type { CapabilityKey, Method } from './types.ts';

/**
 * Every method RCP/1 defines (§7) and the capability that gates it; `null` = always callable
 * after `initialize` (or at any time, see OPEN_METHODS). A method absent here is `-32004`.
 */
export const METHOD_GATES: Readonly<Record<Method, CapabilityKey | null>> = Object.freeze({
  initialize: null,
  info: null,
  ping: null,
  shutdown: null,
  embed: 'embed',
  'embed/sparse': 'sparseEmbed',
  'embed/multi': 'multiVector',
  rerank: 'rerank',
  retrieve: 'retrieve',
  'query/transform': 'transform',
  graph: 'graph',
  'index/add': 'index',
  'index/delete': 'index',
  'catalog/list': 'catalog',
  feedback: 'feedback',
  'memory/build': 'memory',
  'memory/recall': 'memory',
});

/** Callable before a successful `initialize` (§13). */
export const OPEN_METHODS: ReadonlySet<string> = new Set(['initialize', 'info', 'ping', 'shutdown']);

export const isDefinedMethod = (name: string): name is Method => Object.hasOwn(METHOD_GATES, name);

/** The protocol version this implementation speaks (the highest it supports; the floor is 1). */
export const PROTOCOL_VERSION = 1;
