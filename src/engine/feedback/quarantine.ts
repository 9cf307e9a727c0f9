/**
 * The quarantine list in the manifest (Manifest.quarantine): documents a `feedback` integrity
 * signal flagged are held out of answers until released. Pure manifest arithmetic; the engine
 * commits the result as a new index version (so retrieves already running keep theirs).
 */
import type { Manifest, QuarantineEntry } from '../contracts.ts';
import type { DocEntry } from '../index/view.ts';

/** A quarantine entry as listed: whether its document still exists, and its title. */
export type ListedQuarantine = QuarantineEntry & { exists: boolean; title?: string };

/** The quarantine list, oldest first (then by id), with each document's existence and title. */
export function listQuarantine(m: Manifest, docs: ReadonlyMap<string, DocEntry>): ListedQuarantine[] {
  return [...(m.quarantine ?? [])]
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
    .map((e) => {
      const title = docs.get(e.id)?.meta.title;
      return { ...e, exists: docs.has(e.id), ...(typeof title === 'string' ? { title } : {}) };
    });
}

/** The next manifest with `add` quarantined (reasons merged), or undefined when nothing changes. */
export function quarantined(m: Manifest, add: ReadonlyMap<string, readonly QuarantineEntry['reasons'][number][]>, now: number): Manifest | undefined {
  const list = (m.quarantine ?? []).map((e) => ({ ...e, reasons: [...e.reasons] }));
  let changed = false;
  for (const [id, reasons] of add) {
    const e = list.find((x) => x.id === id);
    if (!e) {
      list.push({ id, reasons: [...new Set(reasons)].sort(), at: now });
      changed = true;
      continue;
    }
    for (const r of reasons) {
      if (e.reasons.includes(r)) continue;
      e.reasons.push(r);
      e.reasons.sort();
      changed = true;
    }
  }
  if (!changed) return undefined;
  list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { ...m, version: m.version + 1, quarantine: list };
}

/** The next manifest without `ids` in quarantine, or undefined when none of them was. */
export function released(m: Manifest, ids: readonly string[]): Manifest | undefined {
  const drop = new Set(ids);
  const list = m.quarantine ?? [];
  const kept = list.filter((e) => !drop.has(e.id));
  if (kept.length === list.length) return undefined;
  return { ...m, version: m.version + 1, quarantine: kept };
}

/** The next manifest with `entries` (from an index file) in quarantine as given, or undefined when all already are. */
export function restoredQuarantine(m: Manifest, entries: readonly QuarantineEntry[]): Manifest | undefined {
  const list = [...(m.quarantine ?? [])];
  const have = new Set(list.map((e) => e.id));
  const fresh = entries.filter((e) => !have.has(e.id));
  if (fresh.length === 0) return undefined;
  list.push(...fresh.map((e) => ({ id: e.id, reasons: [...e.reasons].sort(), at: e.at })));
  list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { ...m, version: m.version + 1, quarantine: list };
}
