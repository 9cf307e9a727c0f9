import { invalidParams, payloadTooLarge } from './errors.ts';
import type { FeedbackSignal } from './types.ts';
import { expectObject, fieldPath, optBool, optNumber, optString, paramsObject, read, required } from './validate-kit.ts';

/** Signals one `feedback` call may carry (advertised as `feedback.maxSignals`; -32013 beyond). */
export const MAX_FEEDBACK_SIGNALS = 1000;

export interface ValidatedFeedback {
  sessionId?: string;
  query?: string;
  /** Hit ids as strings (§7.7 ids may be numbers on the wire). */
  signals: (FeedbackSignal & { hitId: string })[];
}

const FLAGS = ['used', 'cited', 'helpful', 'poisonSuspected', 'injectionSuspected'] as const;

/**
 * §7.16 `feedback`: `signals` a required array of objects, each with a `hitId` (string or number)
 * and optional booleans `used`, `cited`, `helpful`, `poisonSuspected`, `injectionSuspected` and a
 * `reward` in [−1, 1]. A malformed signal is -32602 naming it (nothing is recorded); whether a hit
 * id names anything is the engine's question (an unknown one is counted as not accepted).
 * Everything here is untrusted input: it is counted and stored, never obeyed (§15.2).
 */
export function validateFeedback(raw: unknown, maxSignals = MAX_FEEDBACK_SIGNALS): ValidatedFeedback {
  const o = paramsObject(raw);
  const list = required(o, 'signals');
  if (!Array.isArray(list)) throw invalidParams('signals', 'must be an array');
  if (list.length > maxSignals) throw payloadTooLarge('signals', `at most ${maxSignals} signals, got ${list.length}`);
  const signals = list.map((item, i) => {
    const field = fieldPath('signals', i);
    const s = expectObject(item, field);
    const id = read(s, 'hitId');
    if (id === undefined) throw invalidParams(`${field}.hitId`, 'is required');
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) throw invalidParams(`${field}.hitId`, 'must be a string or a number');
    const out: FeedbackSignal & { hitId: string } = { hitId: String(id) };
    for (const flag of FLAGS) {
      const v = optBool(s, flag, `${field}.${flag}`);
      if (v !== undefined) out[flag] = v;
    }
    const reward = optNumber(s, 'reward', `${field}.reward`, { min: -1, max: 1 });
    if (reward !== undefined) out.reward = reward;
    return out;
  });
  const sessionId = optString(o, 'sessionId');
  const query = optString(o, 'query');
  return { signals, ...(sessionId !== undefined ? { sessionId } : {}), ...(query !== undefined ? { query } : {}) };
}
