/**
 * What a check holds while it runs: request helpers over the wire that record every frame as
 * evidence, and the state the run has learned so far (capabilities, whether the endpoint is a
 * stateless HTTP base, the probe documents written). Every frame received is also kept for the
 * checks over the whole run (well-formedness, unsolicited notifications, duplicate answers).
 */
import { isObject } from '../protocol/json.ts';
import type { Capabilities, Id, InitializeResult } from '../protocol/types.ts';
import type { Evidence } from './types.ts';
import { answers, tryParse, type Expect, type HttpInfo, type Reply, type Wire } from './wire.ts';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Answer {
  reply: Reply;
  /** The response object for the request, when one came back. */
  response?: Record<string, unknown>;
  /** `response.result`, when it is a success. */
  result?: Record<string, unknown>;
  error?: RpcError;
  /** Notifications that arrived during the exchange (progress, logs). */
  notifications: Record<string, unknown>[];
  /** Why there is no response to look at: a transport fault or no frame with the request's id. */
  problem?: string;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** The first exchange's limit: a server may take a while to start (a bridge boots a browser). */
  startupMs: number;
  /** Write (and then delete) probe documents when the index is writable. */
  write: boolean;
  /** How long an advertised capability answering -32010 is retried (§12.2: retryable). */
  unavailableRetryMs: number;
}

/** A frame received during the run, with the HTTP status it came with. */
export interface Received {
  text: string;
  http?: HttpInfo;
  /** The check that received it. */
  check: string;
}

/** What the run learned; shared by every check, in order. */
export interface RunState {
  wire: Wire;
  options: ProbeOptions;
  /** `info` before initialize: the server's default capability set (§13.2). */
  defaultInfo?: InitializeResult;
  init?: InitializeResult;
  caps?: Capabilities;
  /** An HTTP base that answers as if every request were initialized (§5.2 stateless). */
  stateless: boolean;
  /** Probe documents this run wrote (ids), to delete at the end. */
  written: string[];
  /** A query and its hits, for checks that need a non-empty result. */
  sample?: { query: string; hits: Record<string, unknown>[] };
  received: Received[];
  /** Every request id sent, with how often (an id reused for another exchange is legal after its answer). */
  sentIds: Map<string, number>;
  /** Every progressToken sent. */
  progressTokens: Set<Id>;
  /** Every Hit.score seen, for the scoreFloor check. */
  scores: number[];
  /** Consecutive transport faults; the run stops when the endpoint is plainly gone. */
  faults: { count: number; last?: string; fatal?: string };
  nextId: number;
  /** Exchanges so far (the first gets `startupMs`). */
  exchanges: number;
}

export function newRunState(wire: Wire, options: ProbeOptions): RunState {
  return { wire, options, stateless: false, written: [], received: [], sentIds: new Map(), progressTokens: new Set(), scores: [], faults: { count: 0 }, nextId: 1000, exchanges: 0 };
}

const MAX_EVIDENCE_CHARS = 4000;
const cut = (s: string): string => (s.length > MAX_EVIDENCE_CHARS ? `${s.slice(0, MAX_EVIDENCE_CHARS)}… (${s.length - MAX_EVIDENCE_CHARS} more characters)` : s);

export interface CallOptions {
  id?: Id | null;
  timeoutMs?: number;
  headers?: Record<string, string | null>;
  /** Retry while the answer is -32010 (an advertised capability whose backend is still loading). */
  retryUnavailable?: boolean;
  /** Send without `params` at all. */
  noParams?: boolean;
}

export class Probe {
  readonly evidence: Evidence[] = [];
  readonly state: RunState;
  private readonly checkId: string;

  constructor(state: RunState, checkId: string) {
    this.state = state;
    this.checkId = checkId;
  }

  get caps(): Capabilities {
    return this.state.caps ?? {};
  }

  get transport(): Wire['transport'] {
    return this.state.wire.transport;
  }

  note(text: string): void {
    this.evidence.push({ dir: 'note', text });
  }

  freshId(): number {
    return this.state.nextId++;
  }

  /** Sends a request and waits for its response. */
  async call(method: string, params?: unknown, o: CallOptions = {}): Promise<Answer> {
    const id = o.id === undefined ? this.freshId() : o.id;
    const frame = o.noParams ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: params ?? {} };
    const deadline = performance.now() + this.state.options.unavailableRetryMs;
    for (let attempt = 0; ; attempt++) {
      const a = await this.exchange(JSON.stringify(frame), { kind: 'response', id }, method, o);
      if (!o.retryUnavailable || a.error?.code !== -32010 || performance.now() > deadline) return a;
      const hinted = isObject(a.error.data) && typeof a.error.data.retryAfterMs === 'number' ? a.error.data.retryAfterMs : 0;
      const wait = Math.min(5000, Math.max(hinted, 250 * 2 ** attempt));
      this.note(`-32010 is retryable (§12.2): retrying in ${wait} ms`);
      await new Promise((ok) => setTimeout(ok, wait));
    }
  }

  /** Sends any text; `expect` says what answer to wait for. */
  async exchange(text: string, expect: Expect, method?: string, o: CallOptions = {}): Promise<Answer> {
    this.evidence.push({ dir: 'out', text: cut(text) });
    if (expect.kind === 'response' && expect.id !== null) this.state.sentIds.set(JSON.stringify(expect.id), (this.state.sentIds.get(JSON.stringify(expect.id)) ?? 0) + 1);
    const reply = await this.state.wire.send(text, { expect, method, timeoutMs: this.limit(o.timeoutMs), headers: o.headers });
    this.record(reply);
    if (reply.fault?.kind === 'timeout' && !this.state.faults.fatal) await this.resync();
    const answer: Answer = { reply, notifications: [] };
    for (const f of reply.frames) {
      const p = tryParse(f);
      if (!p.ok) continue;
      if (isObject(p.value) && 'method' in p.value) answer.notifications.push(p.value);
      else if (isObject(p.value) && answers(expect, p.value)) answer.response = p.value;
    }
    if (answer.response) {
      const r = answer.response;
      if (isObject(r.error)) answer.error = { code: Number(r.error.code), message: String(r.error.message), data: r.error.data };
      else if (isObject(r.result)) answer.result = r.result;
    }
    if (reply.fault) answer.problem = reply.fault.message;
    else if (expect.kind === 'response' && !answer.response) {
      const status = reply.http && reply.http.status !== 200 ? `HTTP ${reply.http.status}, ` : '';
      answer.problem = `${status}${reply.frames.length ? `no response with id ${JSON.stringify(expect.id)} among the ${reply.frames.length} frame(s) received` : 'no answer'}`;
    }
    return answer;
  }

  /** Sends a notification; resolves with whatever came back (nothing, for a conforming server). */
  async notify(method: string, params: unknown = {}): Promise<Reply> {
    const text = JSON.stringify({ jsonrpc: '2.0', method, params });
    this.evidence.push({ dir: 'out', text: cut(text) });
    const reply = await this.state.wire.send(text, { expect: { kind: 'silence' }, method, timeoutMs: this.limit() });
    this.record(reply);
    return reply;
  }

  private limit(timeoutMs?: number): number {
    const t = timeoutMs ?? this.state.options.timeoutMs;
    return this.state.exchanges++ === 0 ? Math.max(t, this.state.options.startupMs) : t;
  }

  /**
   * After a time-out on a stream, waits for a ping to come back (up to the start-up limit), so a
   * late answer lands before the next exchange and is not taken for that one's (it stays a stray,
   * judged by the checks over the whole run).
   */
  private async resync(): Promise<void> {
    if (this.state.wire.transport === 'http') return;
    const id = `rcp-conformance-resync-${this.freshId()}`;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: {} });
    this.state.sentIds.set(JSON.stringify(id), 1);
    const reply = await this.state.wire.send(text, { expect: { kind: 'response', id }, timeoutMs: this.state.options.startupMs });
    this.note(reply.fault ? `resync ping after the time-out: ${reply.fault.message}` : `resync: the server answered a ping ${Math.round(reply.ms)} ms later`);
    this.record(reply);
  }

  /** Responses among a reply's frames (notifications excluded). */
  static answers(reply: Reply): unknown[] {
    return reply.frames.map((f) => tryParse(f)).filter((p) => p.ok && !(isObject(p.value) && 'method' in p.value)).map((p) => (p as { value: unknown }).value);
  }

  private record(reply: Reply): void {
    const http = reply.http;
    if (http) this.evidence.push({ dir: 'note', text: `HTTP ${http.status} ${http.contentType || '(no content type)'} from ${http.url}` });
    for (const f of reply.frames) {
      this.evidence.push({ dir: 'in', text: cut(f) });
      this.state.received.push({ text: f, http, check: this.checkId });
    }
    if (reply.fault) this.evidence.push({ dir: 'note', text: `${reply.fault.kind}: ${reply.fault.message}` });
    const f = this.state.faults;
    if (reply.fault && reply.fault.kind !== 'not-rpc' && reply.fault.kind !== 'too-large') {
      f.count++;
      f.last = reply.fault.message;
      // Unreachable or closed: nothing more can be learned. Two timeouts in a row: it stopped answering.
      if (reply.fault.kind === 'unreachable' || reply.fault.kind === 'closed' || f.count >= 2) f.fatal ??= reply.fault.message;
    } else if (!reply.fault) f.count = 0;
  }
}
