/**
 * §16 federation on the client: one `retrieve` fanned out to every engine that advertises it (the
 * in-page worker, RCP servers over HTTP, a §16.1 registry), each within the query's deadline, the
 * answers fused (fuse-hits.ts). One slow, failing or malformed engine never sinks the others: it
 * is dropped, named in `usage.notes` and `_meta.degraded`, and reported in `engines`. Only a
 * `required` engine's failure, or no engine answering (-32010), fails the query.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { BM25_STATS_FIELD, readBm25Stats, type Bm25Stats } from '../../protocol/bm25-stats.ts';
import { RcpError } from '../../protocol/errors.ts';
import { isObject, isValidId } from '../../protocol/json.ts';
import type { Capabilities, Hit, Meta, PeerInfo, ProgressParams, RetrieveParams, RetrieveResult } from '../../protocol/types.ts';
import { RcpClient } from '../rcp-client.ts';
import { enginesFromRegistry, validateEngines, type EngineEntry, type EngineSpec } from './engines.ts';
import { fuseEngineHits, type FederatedFusion, type FusionMethod } from './fuse-hits.ts';
import { HttpTransport, type HttpTransportOptions } from '../../transport/http-transport.ts';

/** §16.2 RECOMMENDED hop budget of an originating client. */
export const DEFAULT_FEDERATION_DEPTH = 3;
/** Client deadline of one federated query when neither the caller nor `_meta.deadlineMs` sets one. */
export const DEFAULT_FEDERATION_DEADLINE_MS = 5_000;
/** Hits read from one engine's answer at most; a longer list is cut (and noted). */
export const DEFAULT_MAX_HITS_PER_ENGINE = 1_000;
/** Time kept back from downstream deadlines for our own fusion (§16.2 "strictly smaller"). */
const FUSION_RESERVE_MS = 25;

export interface FederationOptions {
  /** Client deadline of a query in ms (default 5000); `_meta.deadlineMs` of the params can lower it. */
  deadlineMs?: number;
  /**
   * `auto` (default): global BM25 when every answering engine sent its BM25 statistics
   * (`x-inpage-bm25`, our engines on a plain sparse query), else raw scores when every answering
   * engine is the same engine (server and `retrieve` capability), else convex when each
   * advertises `scoreFloor`, else RRF.
   */
  fusion?: FederatedFusion;
  /** RRF constant (default 60). */
  rrfK?: number;
  /** Hits asked of each engine = ceil(k × overfetch), bounded by its `maxK` (default 2: fusion headroom). */
  overfetch?: number;
  /** Hop budget of a query this client originates (default 3). */
  depth?: number;
  /** This aggregator's identity, appended to `_meta.federation.path` when it forwards a federated request. */
  identity?: string;
  /** Hits read from one engine at most (default 1000). */
  maxHitsPerEngine?: number;
  /** For HTTP engines: response size limit, fetch (tests). */
  http?: Omit<HttpTransportOptions, 'headers'>;
  /** `clientInfo` sent to the engines this federation connects. */
  clientInfo?: PeerInfo;
}

export type EngineState = 'ok' | 'failed' | 'timeout' | 'skipped';

/** What happened to one engine in one query. */
export interface EngineOutcome {
  id: string;
  state: EngineState;
  /** Hits it returned (after dropping malformed ones). */
  hits: number;
  /** Its wall time in this query (connect included). */
  ms: number;
  /** The RCP error of a failed or timed-out engine. */
  error?: { code: number; message: string };
  /** Why it was skipped, or what was odd about its answer. */
  note?: string;
}

export interface FederatedResult extends RetrieveResult {
  /** One outcome per engine, in the federation's order. */
  engines: EngineOutcome[];
  /** The fusion method used. */
  fusion: FusionMethod;
  /** §16.2: the engines that failed or timed out, when any did. */
  _meta?: Meta & { degraded?: string[] };
}

export interface FederatedCallOptions {
  signal?: AbortSignal;
  /** Overrides the federation's deadline for this call. */
  deadlineMs?: number;
  /**
   * Progress of a federated `retrieve` (§9): the mean of the engines' latest progress (1 once one
   * answered, failed or was skipped), never decreasing; `message` names the engine. Given, each
   * engine is asked for progress under a token of its own connection; absent, none is asked.
   */
  onProgress?: (update: Omit<ProgressParams, 'progressToken'>) => void;
}

/** Folds the engines' progress into one non-decreasing figure in [0, 1] for `FederatedCallOptions.onProgress`. */
function progressTracker(ids: readonly string[], emit: ((u: Omit<ProgressParams, 'progressToken'>) => void) | undefined) {
  const latest = ids.map(() => 0);
  let shown = 0, over = false;
  const report = (i: number, value: number, message: string, stage?: string) => {
    if (!emit || over) return;
    latest[i] = Math.max(latest[i], Math.min(1, Math.max(0, value)));
    shown = Math.max(shown, latest.reduce((a, b) => a + b, 0) / latest.length);
    emit({ progress: shown, ...(stage !== undefined ? { stage } : {}), message: `${ids[i]}: ${message}` });
  };
  return {
    /** An engine's own progress frame (its token already matched by its client). */
    engine: (i: number, p: ProgressParams) => {
      if (typeof p.progress !== 'number' || !Number.isFinite(p.progress)) return;
      const stage = typeof p.stage === 'string' ? p.stage : undefined;
      report(i, p.progress, typeof p.message === 'string' && p.message ? p.message : (stage ?? 'working'), stage);
    },
    /** The engine is done with this query (answered, failed, skipped). */
    settled: (i: number, message: string) => report(i, 1, message),
    /** Nothing is emitted after the answer (§9). */
    end: () => void (over = true),
  };
}

/** `_meta.federation` of an incoming request (when this client forwards one), if well formed. */
function incomingFederation(meta: Meta | undefined): { depth: number; path: string[] } | undefined {
  const f = meta?.federation;
  if (!isObject(f) || typeof f.depth !== 'number' || !Number.isFinite(f.depth) || !Array.isArray(f.path)) return undefined;
  return { depth: Math.floor(f.depth), path: f.path.filter((p): p is string => typeof p === 'string') };
}

/** The hits of an answer that are well formed (valid id, finite score), at most `max` of them. */
function wellFormedHits(result: unknown, max: number): { hits: Hit[]; note?: string } | undefined {
  if (!isObject(result) || !Array.isArray(result.hits)) return undefined;
  const raw = result.hits as unknown[];
  const hits: Hit[] = [];
  let bad = 0;
  for (const h of raw.slice(0, max)) {
    if (isObject(h) && isValidId(h.id) && typeof h.score === 'number' && Number.isFinite(h.score)) hits.push(h as unknown as Hit);
    else bad++;
  }
  const notes = [bad ? `${bad} malformed hit${bad === 1 ? '' : 's'} dropped` : '', raw.length > max ? `answer cut from ${raw.length} to ${max} hits` : ''].filter(Boolean);
  return { hits, note: notes.length ? notes.join('; ') : undefined };
}

const asRcpError = (e: unknown): RcpError => (e instanceof RcpError ? e : new RcpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e)));

/** Resolves `p`, or rejects with -32014 after `ms` (the work itself is abandoned, not stopped). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RcpError(ErrorCode.Timeout, `${what} took longer than ${Math.round(ms)} ms`)), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e)),
    );
  });
}

interface Member extends EngineEntry {
  /** The connected client, once `initialize` succeeded. */
  connecting?: Promise<RcpClient>;
  /** Clients this federation made (for `url` engines) and so closes. */
  owned?: RcpClient;
}

export class Federation {
  private readonly members: Member[];
  private readonly options: FederationOptions;

  /** Throws a -32602 RcpError naming the field when an engine spec is invalid. */
  constructor(engines: readonly EngineSpec[], options: FederationOptions = {}) {
    this.members = validateEngines(engines);
    this.options = options;
  }

  /** A federation over a §16.1 registry document (`rcp.json`); `clients` supplies engines the page already holds, by id. */
  static fromRegistry(registry: unknown, options: FederationOptions & { clients?: Record<string, RcpClient> } = {}): { federation: Federation; notes: string[] } {
    const { engines, notes } = enginesFromRegistry(registry, options.clients);
    return { federation: new Federation(engines, options), notes };
  }

  /** The engines, in order, with their settings. */
  get engines(): readonly Readonly<EngineEntry>[] {
    return this.members.map(({ connecting: _c, owned: _o, ...e }) => e);
  }

  /** §16.4: the union (anything one engine can do) and intersection (what all can) of connected engines' capability keys. */
  async capabilities(options: FederatedCallOptions = {}): Promise<{ union: Capabilities; intersection: Capabilities }> {
    const deadline = Date.now() + (options.deadlineMs ?? this.options.deadlineMs ?? DEFAULT_FEDERATION_DEADLINE_MS);
    const caps = (await Promise.all(this.members.map((m) => this.connected(m, deadline).then((c) => c.capabilities, () => undefined)))).filter((c): c is Capabilities => c !== undefined);
    const union: Record<string, unknown> = {};
    for (const c of caps) for (const [k, v] of Object.entries(c)) if (!(k in union)) union[k] = v;
    const intersection: Record<string, unknown> = {};
    if (caps.length) for (const [k, v] of Object.entries(caps[0])) if (caps.every((c) => k in c)) intersection[k] = v;
    return { union: union as Capabilities, intersection: intersection as Capabilities };
  }

  /** Federated `retrieve` (§16.2, §16.3). Rejects with a typed RcpError only as §16.2 demands. */
  async retrieve(params: RetrieveParams, options: FederatedCallOptions = {}): Promise<FederatedResult> {
    const t0 = Date.now();
    if (options.signal?.aborted) throw new RcpError(ErrorCode.Cancelled, 'cancelled');
    const incomingDeadline = typeof params._meta?.deadlineMs === 'number' && params._meta.deadlineMs > 0 ? params._meta.deadlineMs - FUSION_RESERVE_MS : Infinity;
    const budget = Math.min(options.deadlineMs ?? this.options.deadlineMs ?? DEFAULT_FEDERATION_DEADLINE_MS, incomingDeadline);
    if (budget <= 0) throw new RcpError(ErrorCode.Timeout, 'no time left for a federated query (_meta.deadlineMs)');
    const deadline = t0 + budget;
    const k = params.k ?? 10;

    // Loop detection (§16.2): an originating query carries the full budget and an empty path;
    // forwarding one decrements the depth and appends our identity.
    const incoming = incomingFederation(params._meta);
    const identity = this.options.identity ?? 'rcp-in-page';
    const forwarding = incoming !== undefined;
    const hopsLeft = incoming ? incoming.depth : (this.options.depth ?? DEFAULT_FEDERATION_DEPTH);
    const outgoing = incoming ? { depth: incoming.depth - 1, path: [...incoming.path, identity] } : { depth: hopsLeft, path: [] as string[] };
    const seen = new Set(incoming?.path ?? []);
    const loopedBack = forwarding && seen.has(identity);

    const notes: string[] = [];
    // Engines of ours answer it with what global BM25 needs; others ignore it (§4.4).
    const fusion = this.options.fusion ?? 'auto';
    const askStats = fusion === 'auto' || fusion === 'global-bm25' ? { [BM25_STATS_FIELD]: true } : {};
    const progress = progressTracker(this.members.map((m) => m.id), options.onProgress);
    type Asked = { outcome: EngineOutcome; hits?: Hit[]; floor?: number; scorer?: string; bm25?: Bm25Stats; error?: RcpError };
    const settle = (i: number, r: Asked): Asked => {
      const { state, hits, error, note } = r.outcome;
      progress.settled(i, state === 'ok' ? `answered, ${hits} hit${hits === 1 ? '' : 's'}` : state === 'skipped' ? `skipped (${note})` : `${state === 'timeout' ? 'timed out' : 'failed'}: [${error?.code}] ${error?.message}`);
      return r;
    };
    const outcomes = await Promise.all(
      this.members.map(async (m, i): Promise<Asked> => {
        const started = Date.now();
        const done = (state: EngineState, extra: Partial<EngineOutcome> = {}) => ({ id: m.id, state, hits: 0, ms: Date.now() - started, ...extra });
        if (forwarding && !m.local && (hopsLeft <= 0 || loopedBack)) {
          return { outcome: done('skipped', { note: loopedBack ? `cycle: '${identity}' is already in the federation path` : 'hop budget spent (_meta.federation.depth 0)' }) };
        }
        if (seen.has(m.id)) return { outcome: done('skipped', { note: `cycle: '${m.id}' is already in the federation path` }) };
        try {
          const client = await this.connected(m, deadline, options.signal);
          const cap = client.capabilities?.retrieve;
          if (!cap) return { outcome: done('skipped', { note: 'does not advertise retrieve' }) };
          const remaining = deadline - Date.now();
          if (remaining <= 0) throw new RcpError(ErrorCode.Timeout, 'deadline passed before the request could be sent');
          const asked = Math.max(1, Math.min(Math.ceil(k * (this.options.overfetch ?? 2)), cap.maxK ?? Infinity));
          // The caller's token belongs to its own connection: each engine gets one of its client's.
          const { progressToken: _token, ...meta } = params._meta ?? {};
          const p: RetrieveParams = { ...params, k: asked, _meta: { ...meta, ...askStats, deadlineMs: Math.max(1, remaining - FUSION_RESERVE_MS), federation: outgoing } };
          const onProgress = options.onProgress ? (u: ProgressParams) => progress.engine(i, u) : undefined;
          const result = await client.request('retrieve', p, { signal: options.signal, timeoutMs: remaining, ...(onProgress ? { onProgress } : {}) });
          const read = wellFormedHits(result, this.options.maxHitsPerEngine ?? DEFAULT_MAX_HITS_PER_ENGINE);
          if (!read) throw new RcpError(ErrorCode.InternalError, 'malformed answer: result.hits is not an array');
          const engineNotes = Array.isArray(result.usage?.notes) ? result.usage.notes.filter((n): n is string => typeof n === 'string').slice(0, 8) : [];
          for (const n of engineNotes) notes.push(`${m.id}: ${n}`);
          const floor = typeof cap.scoreFloor === 'number' && Number.isFinite(cap.scoreFloor) ? cap.scoreFloor : undefined;
          const server = client.serverInfo?.server;
          const scorer = server && typeof server.name === 'string' ? JSON.stringify([server.name, server.version, cap]) : undefined;
          // Statistics are per hit: only a list read whole keeps them aligned.
          const whole = Array.isArray(result.hits) && read.hits.length === result.hits.length;
          const bm25 = whole ? readBm25Stats(result._meta, read.hits.length) : undefined;
          return { outcome: done('ok', { hits: read.hits.length, note: read.note }), hits: read.hits, floor, scorer, bm25 };
        } catch (e) {
          const err = asRcpError(e);
          const state: EngineState = err.code === ErrorCode.Timeout ? 'timeout' : 'failed';
          return { outcome: done(state, { error: { code: err.code, message: err.rawMessage } }), error: err };
        }
      }).map((asking, i) => asking.then((r) => settle(i, r))),
    );
    progress.end();
    if (options.signal?.aborted) throw new RcpError(ErrorCode.Cancelled, 'cancelled');

    const requiredFailure = outcomes.find((o, i) => o.error && this.members[i].required);
    if (requiredFailure?.error) {
      const e = requiredFailure.error;
      throw new RcpError(e.code, `required engine '${requiredFailure.outcome.id}' failed: ${e.rawMessage}`, { ...e.data, engine: requiredFailure.outcome.id });
    }
    const answered = outcomes.filter((o) => o.hits !== undefined);
    const failed = outcomes.filter((o) => o.error);
    if (answered.length === 0) {
      const why = outcomes.map((o) => `${o.outcome.id}: ${o.outcome.error?.message ?? o.outcome.note ?? o.outcome.state}`).join('; ');
      const engines = outcomes.map((o) => o.outcome);
      throw new RcpError(ErrorCode.BackendUnavailable, `no engine answered${why ? ` (${why})` : ' (the federation has no engines)'}`, { engines, retryable: failed.length > 0 });
    }

    const fused = fuseEngineHits(
      answered.map((o) => ({ engine: o.outcome.id, weight: this.members.find((m) => m.id === o.outcome.id)!.weight, hits: o.hits!, scoreFloor: o.floor, scorer: o.scorer, bm25: o.bm25 })),
      { method: this.options.fusion, rrfK: this.options.rrfK, k },
    );
    for (const o of outcomes) {
      const { id, state, error, note } = o.outcome;
      if (state === 'failed' || state === 'timeout') notes.push(`engine '${id}' ${state === 'timeout' ? 'timed out' : 'failed'} and was skipped: [${error?.code}] ${error?.message}`);
      else if (note) notes.push(`engine '${id}' ${state === 'skipped' ? 'skipped' : 'answered'}: ${note}`);
    }
    if (failed.length) notes.push(`partial result: ${answered.length} of ${outcomes.length} engines answered`);
    const result: FederatedResult = {
      hits: fused.hits,
      usage: { candidates: answered.reduce((n, o) => n + o.hits!.length, 0), latencyMs: Date.now() - t0, notes },
      engines: outcomes.map((o) => o.outcome),
      fusion: fused.method,
    };
    if (failed.length) result._meta = { degraded: failed.map((o) => o.outcome.id) };
    return result;
  }

  /**
   * Each engine's identity and capabilities from its `initialize` (connecting it within the
   * deadline), or why it could not be reached: what an aggregator's `catalog/list` reports (§7.13).
   */
  async describe(options: FederatedCallOptions = {}): Promise<{ id: string; url?: string; local: boolean; server?: PeerInfo; capabilities?: Capabilities; error?: string }[]> {
    const deadline = Date.now() + (options.deadlineMs ?? this.options.deadlineMs ?? DEFAULT_FEDERATION_DEADLINE_MS);
    return Promise.all(
      this.members.map(async (m) => {
        const base = { id: m.id, local: m.local, ...(m.url ? { url: m.url } : {}) };
        try {
          const c = await this.connected(m, deadline, options.signal);
          return { ...base, server: c.serverInfo?.server, capabilities: c.capabilities };
        } catch (e) {
          return { ...base, error: asRcpError(e).rawMessage };
        }
      }),
    );
  }

  /** Closes the clients this federation opened (HTTP engines); clients it was given stay open. */
  close(): void {
    for (const m of this.members) {
      m.owned?.close();
      m.owned = undefined;
      m.connecting = undefined;
    }
  }

  /** The engine's initialized client, connecting it on first use within the deadline. A failed connect is retried next query. */
  private connected(m: Member, deadline: number, signal?: AbortSignal): Promise<RcpClient> {
    if (m.unreachable) return Promise.reject(new RcpError(ErrorCode.BackendUnavailable, m.unreachable));
    if (!m.connecting) {
      let client = m.client;
      if (!client) {
        client = new RcpClient(new HttpTransport(m.url!, { ...this.options.http, headers: m.headers }), { clientInfo: this.options.clientInfo ?? { name: 'rcp-in-page-federation', version: '0.1.0' } });
        m.owned = client;
      }
      const c = client;
      const opts = () => ({ timeoutMs: Math.max(1, deadline - Date.now()), signal });
      // A stateful HTTP server someone else already initialized refuses `initialize` (-32600);
      // its one session is then joined through `info` (§5.2, §7.2).
      const joinShared = (e: unknown) => (m.url && e instanceof RcpError && e.code === ErrorCode.InvalidRequest ? c.adoptServerSession(opts()) : Promise.reject(e));
      m.connecting = c.serverInfo ? Promise.resolve(c) : c.connect(opts()).catch(joinShared).then(() => c);
      m.connecting.catch(() => {
        if (m.owned === c) {
          c.close();
          m.owned = undefined;
        }
        m.connecting = undefined;
      });
    }
    return within(m.connecting, Math.max(1, deadline - Date.now()), `connecting to engine '${m.id}'`);
  }
}
