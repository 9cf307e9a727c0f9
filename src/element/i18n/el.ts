import type { SearchStrings } from './types.ts';

/** Greek. */
const strings: SearchStrings = {
  label: 'Αναζήτηση σε αυτόν τον ιστότοπο',
  placeholder: 'Αναζήτηση',
  trigger: 'Αναζήτηση',
  results: 'Αποτελέσματα αναζήτησης',
  summary: '{results} σε {pages}',
  result: { one: '{n} αποτέλεσμα', other: '{n} αποτελέσματα' },
  page: { one: '{n} σελίδα', other: '{n} σελίδες' },
  sections: { one: '{n} ενότητα', other: '{n} ενότητες' },
  noResults: 'Κανένα αποτέλεσμα για «{query}»',
  noResultsFiltered: 'Κανένα αποτέλεσμα για «{query}» με {filters}',
  unavailable: 'Η αναζήτηση δεν είναι διαθέσιμη: {reason}',
  partial: 'Ορισμένα αποτελέσματα δεν είναι διαθέσιμα: {reason}',
  anyValue: '{field}: όλα',
  recent: 'Πρόσφατες αναζητήσεις',
  clearRecent: 'Διαγραφή',
};

export default strings;
