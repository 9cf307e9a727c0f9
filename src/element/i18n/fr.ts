import type { SearchStrings } from './types.ts';

/** French. */
const strings: SearchStrings = {
  label: 'Rechercher sur ce site',
  placeholder: 'Rechercher',
  trigger: 'Rechercher',
  results: 'Résultats de la recherche',
  summary: '{results} sur {pages}',
  result: { one: '{n} résultat', other: '{n} résultats' },
  page: { one: '{n} page', other: '{n} pages' },
  sections: { one: '{n} section', other: '{n} sections' },
  noResults: 'Aucun résultat pour « {query} »',
  noResultsFiltered: 'Aucun résultat pour « {query} » avec {filters}',
  unavailable: 'La recherche est indisponible : {reason}',
  partial: 'Certains résultats sont indisponibles : {reason}',
  anyValue: '{field} : tous',
  recent: 'Recherches récentes',
  clearRecent: 'Effacer',
};

export default strings;
