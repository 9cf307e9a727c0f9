/**
 * Feedback records (§7.16): per document, per hit id, how often each signal came. Pure: what the
 * store keeps is computed here, and the store applies it atomically (IndexStore.updateFeedback).
 */
import type { FeedbackSignal } from '../../protocol/types.ts';
import type { FeedbackRecord, HitFeedback } from '../contracts.ts';

export const emptyHitFeedback = (): HitFeedback => ({
  helpful: 0, unhelpful: 0, used: 0, cited: 0, rewardSum: 0, rewards: 0, poisonSuspected: 0, injectionSuspected: 0, last: 0,
});

/** `record` (or a new one) with `signals` for their hit ids counted in; never mutates `record`. */
export function withSignals(docId: string, record: FeedbackRecord | undefined, signals: readonly (FeedbackSignal & { hitId: string })[], now: number): FeedbackRecord {
  const hits: Record<string, HitFeedback> = {};
  for (const [id, h] of Object.entries(record?.hits ?? {})) hits[id] = { ...h };
  for (const s of signals) {
    const h = (hits[s.hitId] ??= emptyHitFeedback());
    if (s.helpful === true) h.helpful++;
    if (s.helpful === false) h.unhelpful++;
    if (s.used === true) h.used++;
    if (s.cited === true) h.cited++;
    if (s.poisonSuspected === true) h.poisonSuspected++;
    if (s.injectionSuspected === true) h.injectionSuspected++;
    if (s.reward !== undefined) {
      h.rewardSum += s.reward;
      h.rewards++;
    }
    h.last = Math.max(h.last, now);
  }
  return { docId, hits };
}

/** The integrity signals a signal raises (§15.2, §15.3): each quarantines the hit's document. */
export function integrityReasons(s: FeedbackSignal): ('poisonSuspected' | 'injectionSuspected')[] {
  const out: ('poisonSuspected' | 'injectionSuspected')[] = [];
  if (s.poisonSuspected === true) out.push('poisonSuspected');
  if (s.injectionSuspected === true) out.push('injectionSuspected');
  return out;
}
