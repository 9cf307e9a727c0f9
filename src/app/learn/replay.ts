/**
 * Replays one session of a recording against any engine (a Wire: a fresh port of this page's
 * engine, or an RCP server over HTTP), request by request, and compares each answer with the one
 * recorded. An engine that answers differently (another engine, another index) shows differences;
 * nothing it sends can make the replay throw.
 */
import type { Wire } from '../../conformance/wire.ts';
import { tryParse } from '../../conformance/wire.ts';
import { isObject } from '../../protocol/json.ts';
import { diffAnswers, type Difference, type Recording } from './recording.ts';

export interface ReplayStep {
  sent: string;
  label: string;
  notification: boolean;
  recorded?: unknown;
  replayed?: unknown;
  differences: Difference[];
  /** Why there is nothing to compare (no recorded answer, a transport fault…). */
  problem?: string;
  /** Added by the replay (an `initialize` the recording did not start with). */
  added?: boolean;
}

const labelOf = (v: unknown): string => {
  if (Array.isArray(v)) return `batch of ${v.length}`;
  if (isObject(v)) return `${typeof v.method === 'string' ? v.method : '(no method)'}${'id' in v ? ` #${JSON.stringify(v.id)}` : ' (notification)'}`;
  return 'not a request';
};

/** The recorded answer to `sent` (the frame at `index`): the first later incoming frame of the session that answers it. */
function recordedAnswer(r: Recording, session: string, index: number, sent: unknown): unknown {
  for (let i = index + 1; i < r.frames.length; i++) {
    const f = r.frames[i];
    if (f.session !== session || f.dir !== 'in') continue;
    const p = tryParse(f.frame);
    if (!p.ok) continue;
    const v = p.value;
    if (Array.isArray(sent) ? Array.isArray(v) || (isObject(v) && v.id === null && !('method' in v)) : isObject(v) && !('method' in v) && isObject(sent) && v.id === sent.id) return v;
  }
  return undefined;
}

export async function replay(r: Recording, session: string, wire: Wire, o: { signal?: AbortSignal; timeoutMs?: number; onStep?(s: ReplayStep): void } = {}): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  const sent = r.frames.map((f, i) => ({ f, i })).filter(({ f }) => f.session === session && f.dir === 'out');
  const first = sent[0] && tryParse(sent[0].f.frame);
  const push = (s: ReplayStep) => (steps.push(s), o.onStep?.(s));
  if (!(first && first.ok && isObject(first.value) && first.value.method === 'initialize')) {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 'replay-initialize', method: 'initialize', params: { protocolVersion: 1, client: { name: 'rcp-replay', version: '1' } } });
    const reply = await wire.send(init, { expect: { kind: 'response', id: 'replay-initialize' }, method: 'initialize', timeoutMs: o.timeoutMs ?? 30_000 });
    push({ sent: init, label: 'initialize (added: the recording starts mid-session)', notification: false, replayed: reply.frames[0] && tryParse(reply.frames[0]).ok ? JSON.parse(reply.frames[0]) : undefined, differences: [], added: true, problem: reply.fault?.message });
  }
  for (const { f, i } of sent) {
    if (o.signal?.aborted) break;
    const p = tryParse(f.frame);
    const v = p.ok ? p.value : undefined;
    const notification = p.ok && isObject(v) && !('id' in v);
    const expect = !p.ok ? { kind: 'response' as const, id: null, alsoNull: true } : Array.isArray(v) ? { kind: 'batch' as const } : notification ? { kind: 'silence' as const } : { kind: 'response' as const, id: (v as { id: string | number | null }).id };
    const method = isObject(v) && typeof v.method === 'string' ? v.method : undefined;
    const reply = await wire.send(f.frame, { expect, method, timeoutMs: o.timeoutMs ?? 30_000 });
    const answers = reply.frames.map((x) => tryParse(x)).filter((x) => x.ok && !(isObject(x.value) && 'method' in x.value)).map((x) => (x as { value: unknown }).value);
    const replayed = Array.isArray(v) ? answers.find(Array.isArray) ?? answers[0] : answers.find((a) => isObject(a) && (a.id === (isObject(v) ? v.id : null) || a.id === null));
    if (notification) {
      push({ sent: f.frame, label: labelOf(v), notification, replayed, differences: [], problem: answers.length ? 'the engine answered a notification' : undefined });
      continue;
    }
    const recorded = recordedAnswer(r, session, i, v);
    const step: ReplayStep = { sent: f.frame, label: p.ok ? labelOf(v) : 'not JSON', notification, recorded, replayed, differences: [] };
    if (reply.fault) step.problem = reply.fault.message;
    else if (recorded === undefined) step.problem = 'the recording holds no answer to compare with';
    else if (replayed === undefined) step.problem = 'no answer';
    else step.differences = diffAnswers(recorded, replayed);
    push(step);
  }
  await wire.close();
  return steps;
}
