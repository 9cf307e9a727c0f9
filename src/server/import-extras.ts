import type { FeedbackRecord, HitFeedback, QuarantineEntry } from '../engine/contracts.ts';
import { invalidParams } from '../protocol/errors.ts';
import { expectObject, fieldPath, optObject, read, type Obj } from '../protocol/validate-kit.ts';

const COUNTS: readonly (keyof HitFeedback)[] = ['helpful', 'unhelpful', 'used', 'cited', 'rewards', 'poisonSuspected', 'injectionSuspected', 'last'];
const REASONS: readonly QuarantineEntry['reasons'][number][] = ['poisonSuspected', 'injectionSuspected'];

/**
 * The `feedback` and `quarantine` members of one `x-inpage/import` document (an index export
 * carries them, src/engine/query/export.ts), validated: counts are integers ≥ 0, `rewardSum` a
 * finite number, reasons from the two integrity signals. Undefined when the document has neither.
 */
export function importExtras(o: Obj, id: string, field: string): { id: string; feedback?: FeedbackRecord['hits']; quarantine?: Omit<QuarantineEntry, 'id'> } | undefined {
  const fb = optObject(o, 'feedback', `${field}.feedback`);
  const q = optObject(o, 'quarantine', `${field}.quarantine`);
  if (!fb && !q) return undefined;
  const out: { id: string; feedback?: FeedbackRecord['hits']; quarantine?: Omit<QuarantineEntry, 'id'> } = { id };
  if (fb) {
    const hits: FeedbackRecord['hits'] = {};
    for (const [hitId, raw] of Object.entries(fb)) {
      const at = fieldPath(`${field}.feedback`, hitId);
      const h = expectObject(raw, at);
      const counts = {} as HitFeedback;
      for (const k of COUNTS) {
        const v = read(h, k) ?? 0;
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalidParams(`${at}.${k}`, 'must be an integer ≥ 0');
        counts[k] = v;
      }
      const sum = read(h, 'rewardSum') ?? 0;
      if (typeof sum !== 'number' || !Number.isFinite(sum)) throw invalidParams(`${at}.rewardSum`, 'must be a finite number');
      counts.rewardSum = sum;
      hits[hitId] = counts;
    }
    out.feedback = hits;
  }
  if (q) {
    const reasons = read(q, 'reasons');
    const at = read(q, 'at') ?? 0;
    if (!Array.isArray(reasons) || reasons.length === 0 || !reasons.every((r) => (REASONS as readonly unknown[]).includes(r))) {
      throw invalidParams(`${field}.quarantine.reasons`, `must list ${REASONS.join(' and/or ')}`);
    }
    if (typeof at !== 'number' || !Number.isFinite(at)) throw invalidParams(`${field}.quarantine.at`, 'must be a number (ms since the epoch)');
    out.quarantine = { reasons: [...new Set(reasons as QuarantineEntry['reasons'])], at };
  }
  return out;
}
