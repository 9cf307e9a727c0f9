import type { SearchStrings } from './types.ts';

/** Korean. */
const strings: SearchStrings = {
  label: '이 사이트 검색',
  placeholder: '검색',
  trigger: '검색',
  results: '검색 결과',
  summary: '{pages}에서 {results}',
  result: '{n}개 결과',
  page: '{n}개 페이지',
  sections: '{n}개 섹션',
  noResults: '“{query}”에 대한 결과가 없습니다',
  noResultsFiltered: '{filters} 조건에서 “{query}”에 대한 결과가 없습니다',
  unavailable: '검색을 사용할 수 없습니다: {reason}',
  partial: '일부 결과를 사용할 수 없습니다: {reason}',
  anyValue: '{field}: 전체',
  recent: '최근 검색',
  clearRecent: '지우기',
};

export default strings;
