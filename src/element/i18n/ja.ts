import type { SearchStrings } from './types.ts';

/** Japanese. */
const strings: SearchStrings = {
  label: 'このサイトを検索',
  placeholder: '検索',
  trigger: '検索',
  results: '検索結果',
  summary: '{pages}で{results}',
  result: '{n} 件',
  page: '{n} ページ',
  sections: '{n} セクション',
  noResults: '「{query}」の検索結果はありません',
  noResultsFiltered: '{filters} で「{query}」の検索結果はありません',
  unavailable: '検索を利用できません：{reason}',
  partial: '一部の結果を利用できません：{reason}',
  anyValue: '{field}：すべて',
  recent: '最近の検索',
  clearRecent: 'クリア',
};

export default strings;
