/**
 * Cross-lingual hybrid: a query written in a language that (almost) no indexed document is
 * written in gets a sparse list of accidental matches — names, numbers, homographs shared between
 * languages — and fusing it only pulls those above the dense list's translations (tatoeba deu→eng
 * on multilingual-e5-small: MRR@10 0.981 dense, 0.768 hybrid). With an embedder that maps
 * languages into one space (`Embedder.crossLingual`), hybrid then ranks by dense alone and says so.
 *
 * The decision needs three things: the query's language named confidently by the same detector
 * that fills documents' `meta.lang` (analysis/language.ts); most documents' languages known; and
 * fewer than half of the query's terms in the index at all. The last guards against the detector's
 * misses on short English queries (on the English dev sets it named 6 of 228 queries French,
 * Danish, Norwegian or Tagalog — "VARIABLE CAPACITANCE AMPLIFIERS" — but every term of those is in
 * its index): with it, no English dev query loses its sparse list, while 88–100% of the tatoeba
 * queries in each direction do (docs/multilingual.md).
 */
import type { LanguageDetector } from '../analysis/language.ts';
import { findTerm } from '../index/segment.ts';
import type { DocEntry, IndexView } from '../index/view.ts';

/** How many live documents carry each `meta.lang`, and how many carry none (or one not yet read). */
export interface LanguageProfile {
  readonly total: number;
  readonly counts: ReadonlyMap<string, number>;
}

/** A query language under this share of the documents whose language is known counts as absent. */
export const ABSENT_SHARE = 0.01;
/** The profile decides only when at least this share of the documents has a known language. */
export const KNOWN_SHARE = 0.5;
/** The sparse list is dropped only when under this share of the query's terms occur in the index. */
export const MAX_TERM_COVERAGE = 0.5;

export function languageProfile(docs: Iterable<DocEntry>, skip?: (d: DocEntry) => boolean): LanguageProfile {
  const counts = new Map<string, number>();
  let total = 0;
  for (const d of docs) {
    if (skip?.(d)) continue;
    total++;
    if (d.unknown) continue; // a bundle's partial entry: its meta is not read yet
    const lang = d.meta.lang;
    if (typeof lang !== 'string' || lang === '') continue;
    const primary = primaryTag(lang); // a given 'de-CH' is German to the detector's 'de'
    counts.set(primary, (counts.get(primary) ?? 0) + 1);
  }
  return { total, counts };
}

/** Share of `terms` that occur in some segment of `view` (1 for no terms). */
export function termCoverage(terms: readonly string[], view: IndexView): number {
  if (terms.length === 0) return 1;
  let found = 0;
  for (const t of terms) if (view.segments.some((s) => findTerm(s.lex.terms, t) >= 0)) found++;
  return found / terms.length;
}

/**
 * The query's language when hybrid should drop its sparse list (the language is absent from the
 * index, and so are most of its terms: `coverage`, from termCoverage), else undefined.
 */
export function absentQueryLanguage(query: string, detect: LanguageDetector, profile: LanguageProfile, coverage: () => number): string | undefined {
  let known = 0;
  for (const n of profile.counts.values()) known += n;
  if (known === 0 || known < KNOWN_SHARE * profile.total) return undefined;
  const lang = detect(query);
  if (lang === undefined) return undefined;
  if ((profile.counts.get(primaryTag(lang)) ?? 0) >= ABSENT_SHARE * known) return undefined;
  return coverage() < MAX_TERM_COVERAGE ? lang : undefined;
}

const primaryTag = (tag: string): string => tag.split(/[-_]/)[0].toLowerCase();

/** The index's most common languages, for a note ("en 998, fr 2"). */
export function describeProfile(profile: LanguageProfile, most = 3): string {
  return [...profile.counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, most)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
}

/** The live documents' language profile, counted once per index version. */
export class LanguageProfiles {
  private kept?: { version: number; profile: LanguageProfile };

  constructor(private readonly state: { current(): { version: number }; readonly docs: ReadonlyMap<string, DocEntry> }) {}

  /**
   * Over a store read on demand (a bundle), documents whose meta is not read yet count as unknown.
   * `skip` leaves documents out (a subset: counted afresh, not cached).
   */
  current(skip?: (d: DocEntry) => boolean): LanguageProfile {
    if (skip) return languageProfile(this.state.docs.values(), skip);
    const version = this.state.current().version;
    if (this.kept?.version !== version) this.kept = { version, profile: languageProfile(this.state.docs.values()) };
    return this.kept.profile;
  }
}

/**
 * The gate a retrieve asks (RecallDeps.absentLanguage): the query's language and the index's when
 * no live document shares the query's, else undefined.
 */
export function absentLanguageGate(
  detector: () => Promise<LanguageDetector>,
  queryTerms: (text: string) => string[],
  profiles: LanguageProfiles,
): (text: string, view: IndexView) => Promise<{ query: string; index: string } | undefined> {
  return async (text, view) => {
    const detect = await detector();
    const profile = profiles.current();
    const query = absentQueryLanguage(text, detect, profile, () => termCoverage(queryTerms(text), view));
    return query === undefined ? undefined : { query, index: describeProfile(profile) };
  };
}
