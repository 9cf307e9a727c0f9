/** Verdict helpers shared by the checks: what came back, said in one line. */
import type { Answer } from './probe.ts';
import type { Verdict } from './types.ts';

export const pass = (detail = ''): Verdict => ({ status: 'pass', detail });
export const fail = (detail: string): Verdict => ({ status: 'fail', detail });
export const skip = (detail: string): Verdict => ({ status: 'skip', detail });

const short = (v: unknown, n = 160): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** What an answer was, for a failure's detail: "result {...}", "error -32602 …", or the transport problem. */
export function described(a: Answer): string {
  if (a.error) return `error ${a.error.code} "${a.error.message.slice(0, 100)}"`;
  if (a.result) return `result ${short(a.result)}`;
  if (a.response) return `response without result or error: ${short(a.response)}`;
  return a.problem ?? 'no answer';
}

/** Passes when the answer is an error with one of `codes`. */
export function expectError(a: Answer, codes: readonly number[], what: string): Verdict {
  if (a.error && codes.includes(a.error.code)) return pass(`${what}: error ${a.error.code}`);
  return fail(`${what}: expected error ${codes.join(' or ')}, got ${described(a)}`);
}

/** The result object, or a failing verdict saying what came instead. */
export function resultOf(a: Answer, what: string): { ok: true; result: Record<string, unknown> } | { ok: false; verdict: Verdict } {
  if (a.result) return { ok: true, result: a.result };
  return { ok: false, verdict: fail(`${what}: expected a result, got ${described(a)}`) };
}

/** Combines sub-verdicts: the first failure wins; otherwise a pass listing what passed. */
export function all(verdicts: Verdict[]): Verdict {
  const failed = verdicts.find((v) => v.status === 'fail');
  if (failed) return failed;
  const passed = verdicts.filter((v) => v.status === 'pass');
  if (passed.length === 0) return verdicts[0] ?? skip('nothing to check');
  return pass(passed.map((v) => v.detail).filter(Boolean).join('; '));
}

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
