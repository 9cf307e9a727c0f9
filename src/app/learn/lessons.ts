/**
 * The Learn RCP tour: short steps from `initialize` to federation, each one idea with its section
 * of the spec, a real request to send (editable), a check of the answer, and the parts of the
 * frame to look at (`highlight`: paths like `result.hits.*.score`). Pure data and checks; tour.ts
 * shows them and sends the requests on a session of its own.
 */
import { isObject } from '../../protocol/json.ts';
import type { Capabilities } from '../../protocol/types.ts';

/** What a step's check sees. */
export interface Answer {
  /** What was sent (parsed). */
  sent: unknown;
  /** The response object (or the array answering a batch), undefined when none came. */
  response?: unknown;
  /** Notifications that arrived while waiting (progress…). */
  notifications: Record<string, unknown>[];
  caps: Capabilities;
}

export interface Verdict {
  ok: boolean;
  message: string;
}

export interface Lesson {
  id: string;
  title: string;
  /** Spec section, e.g. "7.15". */
  section: string;
  /** A few sentences; `code` in backticks. */
  explain: string[];
  /** The request to send (a JSON-RPC object, a batch, or a notification), from the session's capabilities. */
  request(caps: Capabilities): unknown;
  /** The step needs the session initialized (the tour sends `initialize` first when it is not). */
  needsInit: boolean;
  /** The step needs the lesson documents (the tour adds them first when they are missing). */
  needsDocs?: boolean;
  /** The answer is expected to be nothing at all (a notification). */
  silent?: boolean;
  /** Not a request on the session: the tour runs a federated search (§16) instead. */
  federated?: boolean;
  highlight: string[];
  check(a: Answer): Verdict;
}

/** Ids the tour writes; the delete step removes them. */
export const LESSON_DOCS = [
  { id: 'lesson:lighthouse', text: 'The lighthouse keeper trimmed the lamp every evening and watched the ships pass the reef.', meta: { title: 'The keeper', year: 1890, kind: 'lesson' } },
  { id: 'lesson:harbour', text: 'Fishing boats returned to the harbour at dusk, guided by the lighthouse beam across the bay.', meta: { title: 'The harbour', year: 1925, kind: 'lesson' } },
  { id: 'lesson:storm', text: 'A winter storm broke the mast; the crew rowed for shore through the freezing spray.', meta: { title: 'The storm', year: 1950, kind: 'lesson' } },
];

const rpc = (id: string | number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });
const ok = (message: string): Verdict => ({ ok: true, message });
const no = (message: string): Verdict => ({ ok: false, message });

function response(a: Answer): Record<string, unknown> | undefined {
  return isObject(a.response) ? a.response : undefined;
}
const result = (a: Answer): Record<string, unknown> | undefined => {
  const r = response(a)?.result;
  return isObject(r) ? r : undefined;
};
const errorCode = (a: Answer): number | undefined => {
  const e = response(a)?.error;
  return isObject(e) && typeof e.code === 'number' ? e.code : undefined;
};
const hits = (a: Answer): Record<string, unknown>[] => (Array.isArray(result(a)?.hits) ? (result(a)!.hits as unknown[]).filter(isObject) : []);
const describe = (a: Answer) => (errorCode(a) !== undefined ? `error ${errorCode(a)}: ${String((response(a)!.error as { message?: unknown }).message)}` : response(a) ? 'a result' : 'no answer');

/** The field the filter step filters on: `year` when advertised, else the first numeric field. */
export function filterField(caps: Capabilities): { field: string; numeric: boolean } | undefined {
  const f = caps.filter?.fields;
  if (!f) return undefined;
  if (Array.isArray(f)) return f.length ? { field: f.includes('year') ? 'year' : f[0], numeric: false } : undefined;
  const entries = Object.entries(f);
  if (f.year) return { field: 'year', numeric: f.year === 'int' || f.year === 'float' };
  const num = entries.find(([, t]) => t === 'int' || t === 'float');
  return num ? { field: num[0], numeric: true } : entries[0] ? { field: entries[0][0], numeric: false } : undefined;
}

export const LESSONS: readonly Lesson[] = [
  {
    id: 'initialize',
    title: 'Open a session: initialize',
    section: '7.1',
    explain: [
      'Every RCP session starts with `initialize`: the client offers the highest protocol version it speaks, the server answers with the version both will use, who it is, and its capabilities.',
      'Before a successful `initialize` only `info`, `ping` and `shutdown` work; anything else is refused with `-32001` (§13). The tour gets a session of its own, so nothing you do here disturbs the page.',
    ],
    request: () => rpc(1, 'initialize', { protocolVersion: 1, client: { name: 'learn-rcp-tour', version: '1' } }),
    needsInit: false,
    highlight: ['result.protocolVersion', 'result.server', 'result._meta.conformance'],
    check: (a) => {
      const r = result(a);
      if (!r) return no(`Expected a result, got ${describe(a)}. (A second initialize on one session is -32600; start a new tour session to try again.)`);
      return typeof r.protocolVersion === 'number' && r.protocolVersion >= 1 ? ok(`Negotiated protocol version ${r.protocolVersion} with ${String((r.server as { name?: unknown })?.name)}, which declares conformance ${String((r._meta as { conformance?: unknown })?.conformance)}.`) : no('The result has no protocolVersion ≥ 1.');
    },
  },
  {
    id: 'capabilities',
    title: 'What the server offers: capabilities',
    section: '6',
    explain: [
      'Capabilities follow presence ⇒ supported: a key being there means the feature works, its value carries details (`retrieve.modes`, `maxK`, `filter.fields`). A client must not use what is absent.',
      '`info` returns the same capability set as `initialize`, at any time, without changing anything (§7.2, §13.2). The set is fixed for the whole session.',
    ],
    request: () => rpc(2, 'info'),
    needsInit: true,
    highlight: ['result.capabilities.retrieve.modes', 'result.capabilities.retrieve.maxK', 'result.capabilities.filter', 'result.capabilities.index'],
    check: (a) => {
      const caps = result(a)?.capabilities;
      if (!isObject(caps)) return no(`Expected a result with capabilities, got ${describe(a)}.`);
      return ok(`This server advertises ${Object.keys(caps).length} capabilities: ${Object.keys(caps).join(', ')}.`);
    },
  },
  {
    id: 'ping',
    title: 'Liveness: ping and its nonce',
    section: '7.15',
    explain: ['`ping` answers at any time and echoes the `nonce` you send, with the same JSON type: a cheap round trip to measure latency or keep a connection alive.', 'Every response echoes the request `id` unchanged, as sent (§4.7); change the id or the nonce and send again.'],
    request: () => rpc('ping-1', 'ping', { nonce: 42 }),
    needsInit: false,
    highlight: ['id', 'result.nonce'],
    check: (a) => {
      const sent = isObject(a.sent) && isObject(a.sent.params) ? a.sent.params.nonce : undefined;
      const r = result(a);
      if (!r) return no(`Expected a result, got ${describe(a)}.`);
      if (sent !== undefined && r.nonce !== sent) return no(`The nonce came back as ${JSON.stringify(r.nonce)}, not ${JSON.stringify(sent)}.`);
      return ok(`The nonce ${JSON.stringify(r.nonce)} and the id ${JSON.stringify(response(a)?.id)} came back as sent.`);
    },
  },
  {
    id: 'errors',
    title: 'When something is wrong: error codes',
    section: '12',
    explain: [
      'Every failure is a JSON-RPC error object with a `code` and a `message`. RCP has its own codes: `-32004` for a method that does not exist, `-32003` for one the server did not advertise, `-32005` for an option outside the advertised set, `-32602` for malformed params (with `error.data.field` naming the culprit).',
      'Send a method RCP does not define and look at the code.',
    ],
    request: () => rpc(3, 'summon/kraken', { depth: 'fathomless' }),
    needsInit: true,
    highlight: ['error.code', 'error.message'],
    check: (a) => (errorCode(a) === -32004 ? ok('-32004 UnknownMethod: the method is not defined by RCP at all (§12 "Choosing between overlapping codes").') : no(`Expected error -32004 for an undefined method, got ${describe(a)}.`)),
  },
  {
    id: 'index',
    title: 'Add documents: index/add',
    section: '7.10',
    explain: [
      '`index/add` upserts documents: one with an explicit `id` replaces the previous document with that id, so a retried write never duplicates (idempotency). `ids` come back in the order you sent the documents.',
      '`meta` travels with each document and can be filtered on later. These three documents are removed again in the `index/delete` step.',
    ],
    request: () => rpc(4, 'index/add', { documents: LESSON_DOCS }),
    needsInit: true,
    highlight: ['result.ids', 'result.chunks'],
    check: (a) => {
      const ids = result(a)?.ids;
      if (!Array.isArray(ids)) return no(`Expected result.ids, got ${describe(a)}.`);
      return ok(`${ids.length} documents indexed; their ids came back in order: ${ids.join(', ')}.`);
    },
  },
  {
    id: 'retrieve',
    title: 'Search: retrieve',
    section: '7.7',
    explain: [
      '`retrieve` is the workhorse: a query in, ranked hits out. Each hit has an `id` and a `score` (higher is better, only comparable within one response, §4.6), and here a `citation` saying where the text comes from.',
      '`k` caps the number of hits; `mode: "sparse"` asks for keyword (BM25) search.',
    ],
    request: () => rpc(5, 'retrieve', { query: 'lighthouse keeper', k: 3, mode: 'sparse', includeText: true }),
    needsInit: true,
    needsDocs: true,
    highlight: ['result.hits.*.id', 'result.hits.*.score', 'result.hits.*.citation'],
    check: (a) => {
      const hs = hits(a);
      if (!result(a)) return no(`Expected a result, got ${describe(a)}.`);
      if (!hs.length) return no('No hits: is the lighthouse document indexed? Run the index/add step.');
      const scores = hs.map((h) => Number(h.score));
      const desc = scores.every((s, i) => i === 0 || s <= scores[i - 1]);
      return desc ? ok(`${hs.length} hits, best first (scores ${scores.map((s) => s.toFixed(2)).join(' ≥ ')}); the top one is ${String(hs[0].id)}.`) : no('The scores are not in descending order.');
    },
  },
  {
    id: 'hybrid',
    title: 'Meaning and words together: hybrid retrieval and fusion',
    section: '7.7',
    explain: [
      'Dense retrieval compares meanings (vectors from a model), sparse compares words; `hybrid` runs both and fuses the two lists. `fusion.method` picks how: `rrf` uses ranks only, `weighted` and `convex` normalised scores (§16.3 explains why each).',
      'Each hit then carries `scores` per stage, so you can see what each retriever thought. (While the model is still loading, the engine says so and serves what it can.)',
    ],
    request: (caps) => rpc(6, 'retrieve', { query: 'a beacon that guides boats home', k: 3, mode: caps.retrieve?.modes?.includes('hybrid') ? 'hybrid' : 'sparse', ...(caps.retrieve?.fusion?.includes('rrf') ? { fusion: { method: 'rrf' } } : {}), includeText: true }),
    needsInit: true,
    needsDocs: true,
    highlight: ['params.mode', 'result.hits.*.scores', 'result.usage'],
    check: (a) => {
      if (!result(a)) return no(`Expected a result, got ${describe(a)}.`);
      const hs = hits(a);
      const stages = [...new Set(hs.flatMap((h) => (isObject(h.scores) ? Object.keys(h.scores) : [])))];
      return ok(`${hs.length} hits; per-stage scores: ${stages.join(', ') || 'none'}.${stages.includes('dense') ? '' : ' (No dense score: the server served this without its model.)'}`);
    },
  },
  {
    id: 'filter',
    title: 'Narrow down: metadata filters',
    section: '8',
    explain: [
      'A `filter` is a small boolean tree over the advertised `filter.fields`: `{field, op, value}` leaves combined with `and`/`or`/`not`. A field the server did not advertise is `-32602` with `error.data.field`; an operator outside `filter.operators` is `-32005`.',
      'Fields are fixed when the session starts: a field first indexed later is not filterable on this session.',
    ],
    request: (caps) => {
      const f = filterField(caps);
      const filter = !f ? { field: 'year', op: 'gte', value: 1900 } : f.numeric ? { field: f.field, op: 'gte', value: 1900 } : { field: f.field, op: 'exists', value: true };
      return rpc(7, 'retrieve', { query: 'lighthouse', k: 3, mode: 'sparse', filter });
    },
    needsInit: true,
    needsDocs: true,
    highlight: ['params.filter', 'result.hits.*.meta', 'error.data.field'],
    check: (a) => {
      if (errorCode(a) === -32602) return ok(`-32602 naming ${JSON.stringify((response(a)!.error as { data?: { field?: unknown } }).data?.field)}: this session's filter.fields do not include it (see the capabilities step).`);
      if (!result(a)) return no(`Expected a result (or a -32602 for an unadvertised field), got ${describe(a)}.`);
      return ok(`${hits(a).length} hits, every one passing the filter.`);
    },
  },
  {
    id: 'validation',
    title: 'Bad params are typed errors',
    section: '12',
    explain: [
      'A value that is structurally invalid (a negative `k`, a string where a number belongs) is `-32602`, and `error.data.field` says which one. A value that is merely large (`k` above `maxK`) is not an error: the server clamps it (§7.7).',
    ],
    request: () => rpc(8, 'retrieve', { query: 'lighthouse', k: -1 }),
    needsInit: true,
    highlight: ['error.code', 'error.data.field'],
    check: (a) => (errorCode(a) === -32602 ? ok(`-32602 with error.data.field ${JSON.stringify((response(a)!.error as { data?: { field?: unknown } }).data?.field)}.`) : no(`Expected -32602 for k = -1, got ${describe(a)}.`)),
  },
  {
    id: 'progress',
    title: 'Progress while it works: notifications/progress',
    section: '9',
    explain: [
      'With `streaming` advertised, a request carrying `_meta.progressToken` may get `notifications/progress` frames before its answer, each echoing the token. They are advisory: the response that follows is authoritative.',
      'Notifications have no `id` and are never answered (§4.5).',
    ],
    request: () => rpc(9, 'retrieve', { query: 'storm at sea', k: 2, _meta: { progressToken: 'lesson-progress' } }),
    needsInit: true,
    needsDocs: true,
    highlight: ['params._meta.progressToken', 'params.progressToken', 'params.stage'],
    check: (a) => {
      if (!result(a)) return no(`Expected a result, got ${describe(a)}.`);
      const p = a.notifications.filter((n) => n.method === 'notifications/progress');
      if (!a.caps.streaming) return ok('This server does not advertise streaming, so no progress frames: the answer alone is authoritative.');
      return ok(p.length ? `${p.length} progress frames (${p.map((n) => String((n.params as { stage?: unknown })?.stage ?? '')).join(', ')}), each with the token, then the answer.` : 'No progress frames this time (they are advisory); the answer came.');
    },
  },
  {
    id: 'batch',
    title: 'Several requests at once: batches',
    section: '11',
    explain: [
      'A JSON array of requests is a batch: the answer is an array with one response per request, in any order, matched by `id`. A notification inside a batch gets no entry.',
    ],
    request: () => [rpc('b1', 'ping', { nonce: 'first' }), rpc('b2', 'info'), { jsonrpc: '2.0', method: 'ping', params: {} }],
    needsInit: true,
    highlight: ['*.id'],
    check: (a) => {
      if (!Array.isArray(a.response)) return no('Expected an array of responses.');
      const ids = a.response.map((r) => (isObject(r) ? r.id : undefined));
      return a.response.length === 2 ? ok(`Two responses (ids ${ids.map((i) => JSON.stringify(i)).join(', ')}) for two requests; the notification got none.`) : no(`Expected 2 responses, got ${a.response.length}.`);
    },
  },
  {
    id: 'notification',
    title: 'Notifications are never answered',
    section: '4.5',
    explain: ['A message without an `id` is a notification: the server must not answer it, not even with an error. `notifications/cancel` is one: it asks the server to abandon an in-flight request (§7.14); cancelling an id that is not in flight is simply ignored.'],
    request: () => ({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'nothing-in-flight', reason: 'a lesson' } }),
    needsInit: true,
    silent: true,
    highlight: [],
    check: (a) => (a.response === undefined ? ok('No answer came back, as §4.5 requires.') : no('The server answered a notification.')),
  },
  {
    id: 'delete',
    title: 'Remove documents: index/delete',
    section: '7.11',
    explain: ['`index/delete` is idempotent: deleting an id that is not there is not an error, and `deleted` counts only what this call removed. Send it twice: the second answer says 0.'],
    request: () => rpc(12, 'index/delete', { ids: LESSON_DOCS.map((d) => d.id) }),
    needsInit: true,
    highlight: ['result.deleted'],
    check: (a) => {
      const d = result(a)?.deleted;
      return typeof d === 'number' ? ok(d === 0 ? 'deleted: 0 — nothing left to remove, and no error (idempotent).' : `deleted: ${d}. Send it again: the answer is 0.`) : no(`Expected result.deleted, got ${describe(a)}.`);
    },
  },
  {
    id: 'federation',
    title: 'Many engines as one: federation',
    section: '16',
    explain: [
      'RCP is point to point; searching several engines is the client\'s job (§16): send the same `retrieve` to each, then fuse the lists by rank (RRF), tagging each hit with the engine it came from in `meta.engine`. An engine that fails or is slow is skipped and named in `usage.notes`.',
      'Here the page federates its own engine with a second engine behind RCP in this page (MiniSearch over the lesson documents), offline.',
    ],
    request: () => ({ method: 'retrieve (federated)', params: { query: 'lighthouse', k: 5 } }),
    needsInit: true,
    federated: true,
    highlight: ['result.hits.*.meta.engine', 'result.engines', 'result.usage'],
    check: (a) => {
      const hs = hits(a);
      const engines = [...new Set(hs.map((h) => String((h.meta as { engine?: unknown } | undefined)?.engine)))];
      return hs.length ? ok(`${hs.length} fused hits from ${engines.join(' and ')}, ranked by RRF.`) : no(`No fused hits: ${describe(a)}.`);
    },
  },
  {
    id: 'shutdown',
    title: 'End the session: shutdown',
    section: '7.12',
    explain: ['`shutdown` ends the session: it answers `{}` and processes nothing sent after its answer. Over stdio, closing stdin means the same (§5.1). The tour opens a new session when you start over.'],
    request: () => rpc(14, 'shutdown'),
    needsInit: false,
    highlight: ['result'],
    check: (a) => (result(a) !== undefined ? ok('{} — the session is over. Going back to a step opens a new one.') : no(`Expected {}, got ${describe(a)}.`)),
  },
];
