/**
 * The engine's `feedback` (§7.16): signals are counted per hit, stored with the index, and an
 * integrity signal (`poisonSuspected`, `injectionSuspected`) quarantines the hit's document — a new
 * index version that later retrieves and graph answers leave it out of (§15.3: the server's choice
 * of action; the signal is advisory, never obeyed as an instruction). Nothing here changes how a
 * passage ranks: counts are shown, and used for ranking only where a measurement showed a gain.
 */
import type { ValidatedFeedback } from '../../protocol/validate-feedback.ts';
import type { FeedbackRecord, FeedbackUpdate, IndexStore, QuarantineEntry } from '../contracts.ts';
import { parseHitId } from '../index/hit-id.ts';
import type { DocEntry } from '../index/view.ts';
import { integrityReasons, withSignals } from './records.ts';

export interface FeedbackOutcome {
  /** Signals recorded (§7.16 `accepted`). */
  accepted: number;
  /** Indexes (in `signals`) of those whose hit id names nothing in the index: counted out, not an error. */
  unknown: number[];
  /** Documents this call quarantined (already quarantined ones are not repeated). */
  quarantined: string[];
}

/** The engine's writer, as feedback uses it (state/writer.ts). */
export interface QuarantineWriter {
  /** Commits a quarantine of these documents (with their reasons) as a new version; returns those newly added. */
  quarantine(add: ReadonlyMap<string, QuarantineEntry['reasons']>, signal?: AbortSignal): Promise<string[]>;
}

export interface FeedbackDeps {
  store: Pick<IndexStore, 'getFeedback' | 'updateFeedback'>;
  /** The live documents of the current version (IndexState). */
  state: { readonly docs: ReadonlyMap<string, DocEntry> };
  writer: QuarantineWriter;
  now(): number;
}

export class FeedbackService {
  constructor(private readonly deps: FeedbackDeps) {}

  /** True when the store keeps feedback (the capability is advertised only then). */
  get available(): boolean {
    return typeof this.deps.store.updateFeedback === 'function' && typeof this.deps.store.getFeedback === 'function';
  }

  /** The document a hit id names, with the id its feedback is kept under; undefined for a hit of nothing. */
  resolve(hitId: string): { doc: DocEntry; key: string } | undefined {
    const docs = this.deps.state.docs;
    const whole = docs.get(hitId);
    if (whole) return { doc: whole, key: hitId }; // unit "document", or a one-chunk document
    const { docId, index } = parseHitId(hitId);
    const doc = docs.get(docId);
    return doc && index < doc.chunkKeys.length ? { doc, key: hitId } : undefined;
  }

  async record(v: ValidatedFeedback, signal?: AbortSignal): Promise<FeedbackOutcome> {
    const byDoc = new Map<string, (typeof v.signals)[number][]>();
    const flagged = new Map<string, QuarantineEntry['reasons']>();
    const unknown: number[] = [];
    v.signals.forEach((s, i) => {
      const hit = this.resolve(s.hitId);
      if (!hit) return void unknown.push(i);
      const list = byDoc.get(hit.doc.id);
      const normalised = { ...s, hitId: hit.key };
      if (list) list.push(normalised);
      else byDoc.set(hit.doc.id, [normalised]);
      const reasons = integrityReasons(s);
      if (reasons.length) flagged.set(hit.doc.id, [...new Set([...(flagged.get(hit.doc.id) ?? []), ...reasons])]);
    });
    const now = this.deps.now();
    const updates: FeedbackUpdate[] = [...byDoc].map(([docId, signals]) => ({ docId, apply: (old) => withSignals(docId, old, signals, now) }));
    if (updates.length) await this.deps.store.updateFeedback!(updates);
    const quarantined = flagged.size ? await this.deps.writer.quarantine(flagged, signal) : [];
    return { accepted: v.signals.length - unknown.length, unknown, quarantined };
  }

  /** What feedback a document's hits got (undefined: none). */
  async forDocument(id: string): Promise<FeedbackRecord | undefined> {
    return (await this.deps.store.getFeedback!([id]))[0];
  }

  /** Replaces documents' feedback with what an index file carried (an import is lossless and idempotent). */
  async replace(records: readonly FeedbackRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.deps.store.updateFeedback!(records.map((r) => ({ docId: r.docId, apply: () => (Object.keys(r.hits).length ? r : undefined) })));
  }
}
