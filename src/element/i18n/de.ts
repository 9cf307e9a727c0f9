import type { SearchStrings } from './types.ts';

/** German. */
const strings: SearchStrings = {
  label: 'Diese Website durchsuchen',
  placeholder: 'Suchen',
  trigger: 'Suche',
  results: 'Suchergebnisse',
  summary: '{results} auf {pages}',
  result: '{n} Treffer',
  page: { one: '{n} Seite', other: '{n} Seiten' },
  sections: { one: '{n} Abschnitt', other: '{n} Abschnitte' },
  noResults: 'Keine Ergebnisse für „{query}“',
  noResultsFiltered: 'Keine Ergebnisse für „{query}“ mit {filters}',
  unavailable: 'Die Suche ist nicht verfügbar: {reason}',
  partial: 'Einige Ergebnisse sind nicht verfügbar: {reason}',
  anyValue: '{field}: alle',
  recent: 'Letzte Suchen',
  clearRecent: 'Löschen',
};

export default strings;
