import type { SearchStrings } from './types.ts';

/** Russian. */
const strings: SearchStrings = {
  label: 'Поиск по сайту',
  placeholder: 'Поиск',
  trigger: 'Поиск',
  results: 'Результаты поиска',
  summary: '{results} на {pages}',
  result: { one: '{n} результат', few: '{n} результата', many: '{n} результатов', other: '{n} результата' },
  // After «на»: the prepositional case.
  page: { one: '{n} странице', other: '{n} страницах' },
  sections: { one: '{n} раздел', few: '{n} раздела', many: '{n} разделов', other: '{n} раздела' },
  noResults: 'Ничего не найдено по запросу «{query}»',
  noResultsFiltered: 'Ничего не найдено по запросу «{query}» с фильтрами: {filters}',
  unavailable: 'Поиск недоступен: {reason}',
  partial: 'Некоторые результаты недоступны: {reason}',
  anyValue: '{field}: любое',
  recent: 'Недавние запросы',
  clearRecent: 'Очистить',
};

export default strings;
