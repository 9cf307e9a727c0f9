import type { SearchStrings } from './types.ts';

/** Hebrew. */
const strings: SearchStrings = {
  label: 'חיפוש באתר',
  placeholder: 'חיפוש',
  trigger: 'חיפוש',
  results: 'תוצאות החיפוש',
  summary: '{results} ב-{pages}',
  result: { one: 'תוצאה אחת', other: '{n} תוצאות' },
  page: { one: 'עמוד אחד', other: '{n} עמודים' },
  sections: { one: 'מקטע אחד', other: '{n} מקטעים' },
  noResults: 'אין תוצאות עבור "{query}"',
  noResultsFiltered: 'אין תוצאות עבור "{query}" עם {filters}',
  unavailable: 'החיפוש אינו זמין: {reason}',
  partial: 'חלק מהתוצאות אינן זמינות: {reason}',
  anyValue: '{field}: הכול',
  recent: 'חיפושים אחרונים',
  clearRecent: 'ניקוי',
};

export default strings;
