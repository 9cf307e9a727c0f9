import type { SearchStrings } from './types.ts';

/** Arabic. */
const strings: SearchStrings = {
  label: 'ابحث في هذا الموقع',
  placeholder: 'بحث',
  trigger: 'بحث',
  results: 'نتائج البحث',
  summary: '{results} في {pages}',
  result: { zero: '{n} نتيجة', one: 'نتيجة واحدة', two: 'نتيجتان', few: '{n} نتائج', other: '{n} نتيجة' },
  // After «في»: the genitive.
  page: { one: 'صفحة واحدة', two: 'صفحتين', few: '{n} صفحات', other: '{n} صفحة' },
  sections: { one: 'قسم واحد', two: 'قسمان', few: '{n} أقسام', many: '{n} قسمًا', other: '{n} قسم' },
  noResults: 'لا توجد نتائج لـ «{query}»',
  noResultsFiltered: 'لا توجد نتائج لـ «{query}» مع {filters}',
  unavailable: 'البحث غير متاح: {reason}',
  partial: 'بعض النتائج غير متاحة: {reason}',
  anyValue: '{field}: الكل',
  recent: 'عمليات البحث الأخيرة',
  clearRecent: 'مسح',
};

export default strings;
