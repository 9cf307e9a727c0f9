import type { SearchStrings } from './types.ts';

/** Hindi. */
const strings: SearchStrings = {
  label: 'इस साइट पर खोजें',
  placeholder: 'खोजें',
  trigger: 'खोज',
  results: 'खोज परिणाम',
  summary: '{pages} पर {results}',
  result: '{n} परिणाम',
  page: { one: '{n} पृष्ठ', other: '{n} पृष्ठों' },
  sections: '{n} अनुभाग',
  noResults: '“{query}” के लिए कोई परिणाम नहीं',
  noResultsFiltered: '{filters} के साथ “{query}” के लिए कोई परिणाम नहीं',
  unavailable: 'खोज उपलब्ध नहीं है: {reason}',
  partial: 'कुछ परिणाम उपलब्ध नहीं हैं: {reason}',
  anyValue: '{field}: कोई भी',
  recent: 'हाल की खोजें',
  clearRecent: 'साफ़ करें',
};

export default strings;
