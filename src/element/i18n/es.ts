import type { SearchStrings } from './types.ts';

/** Spanish. */
const strings: SearchStrings = {
  label: 'Buscar en este sitio',
  placeholder: 'Buscar',
  trigger: 'Buscar',
  results: 'Resultados de la búsqueda',
  summary: '{results} en {pages}',
  result: { one: '{n} resultado', other: '{n} resultados' },
  page: { one: '{n} página', other: '{n} páginas' },
  sections: { one: '{n} sección', other: '{n} secciones' },
  noResults: 'No hay resultados para «{query}»',
  noResultsFiltered: 'No hay resultados para «{query}» con {filters}',
  unavailable: 'La búsqueda no está disponible: {reason}',
  partial: 'Algunos resultados no están disponibles: {reason}',
  anyValue: '{field}: cualquiera',
  recent: 'Búsquedas recientes',
  clearRecent: 'Borrar',
};

export default strings;
