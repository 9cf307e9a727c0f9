import type { SearchStrings } from './types.ts';

/** Chinese (simplified). */
const strings: SearchStrings = {
  label: '搜索本站',
  placeholder: '搜索',
  trigger: '搜索',
  results: '搜索结果',
  summary: '{results}，来自{pages}',
  result: '{n} 条结果',
  page: '{n} 个页面',
  sections: '{n} 个章节',
  noResults: '没有找到“{query}”的结果',
  noResultsFiltered: '在 {filters} 条件下没有找到“{query}”的结果',
  unavailable: '搜索不可用：{reason}',
  partial: '部分结果不可用：{reason}',
  anyValue: '{field}：全部',
  recent: '最近搜索',
  clearRecent: '清除',
};

export default strings;
