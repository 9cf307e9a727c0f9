import type { SearchStrings } from './types.ts';

/** Thai. */
const strings: SearchStrings = {
  label: 'ค้นหาในเว็บไซต์นี้',
  placeholder: 'ค้นหา',
  trigger: 'ค้นหา',
  results: 'ผลการค้นหา',
  summary: '{results} ใน {pages}',
  result: '{n} ผลลัพธ์',
  page: '{n} หน้า',
  sections: '{n} หัวข้อ',
  noResults: 'ไม่พบผลลัพธ์สำหรับ “{query}”',
  noResultsFiltered: 'ไม่พบผลลัพธ์สำหรับ “{query}” ด้วยตัวกรอง {filters}',
  unavailable: 'ไม่สามารถค้นหาได้: {reason}',
  partial: 'ผลลัพธ์บางส่วนไม่พร้อมใช้งาน: {reason}',
  anyValue: '{field}: ทั้งหมด',
  recent: 'การค้นหาล่าสุด',
  clearRecent: 'ล้าง',
};

export default strings;
