/** The shape of `<rcp-search>`'s UI strings (strings.ts reads them; i18n/<lang>.ts provide them). */

/** One string per CLDR plural category, `other` the fallback. */
export type Plural = string | ({ other: string } & Partial<Record<Intl.LDMLPluralRule, string>>);

export interface SearchStrings {
  /** The box's label and the dialog's name. */
  label: string;
  placeholder: string;
  /** The dialog's button. */
  trigger: string;
  /** The result list's name. */
  results: string;
  /** The status line: `{results}` and `{pages}` are the counts below. */
  summary: string;
  result: Plural;
  page: Plural;
  /** A page's count of matching sections, shown with its title. */
  sections: Plural;
  noResults: string;
  /** `{filters}`: the active filters, as `field: value` in a list. */
  noResultsFiltered: string;
  unavailable: string;
  partial: string;
  /** A filter's "no filter" choice. */
  anyValue: string;
  recent: string;
  clearRecent: string;
}
