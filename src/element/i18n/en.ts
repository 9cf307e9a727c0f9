import type { SearchStrings } from './types.ts';

/** English, the fallback: the only strings in the element's own file. */
const en: SearchStrings = {
  label: 'Search this site',
  placeholder: 'Search',
  trigger: 'Search',
  results: 'Search results',
  summary: '{results} on {pages}',
  result: { one: '{n} result', other: '{n} results' },
  page: { one: '{n} page', other: '{n} pages' },
  sections: { one: '{n} section', other: '{n} sections' },
  noResults: 'No results for “{query}”',
  noResultsFiltered: 'No results for “{query}” with {filters}',
  unavailable: 'Search is unavailable: {reason}',
  partial: 'Some results are unavailable: {reason}',
  anyValue: 'any {field}',
  recent: 'Recent searches',
  clearRecent: 'Clear',
};

export default en;
