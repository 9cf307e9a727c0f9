/**
 * §4.6 timestamps: an RFC 3339 / ISO 8601 string or an integer count of milliseconds since the
 * Unix epoch. Everything here converts to epoch ms so that filters and recency compare one way.
 * Parsing never depends on the host time zone.
 */

const RFC3339_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})?)?$/;

/** Largest |ms| a JS Date can hold (±100,000,000 days). */
const MAX_DATE_MS = 8.64e15;

const daysInMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * Parses an RFC 3339 date-time (`2017-06-12T00:00:00Z`, `…T01:30:00.250+02:00`) or full-date
 * (`2017-06-12`, read as UTC midnight) into epoch ms. A date-time without an offset is read as
 * UTC (§4.6 recommends UTC). Fractions beyond milliseconds are truncated. Calendar-invalid values
 * (`2023-02-30`, hour 24) and everything else return `undefined`.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339_RE.exec(text);
  if (!m) return undefined;
  const [, ys, mos, ds, hs = '0', mis = '0', ss = '0', frac = '', offset = 'Z'] = m;
  const y = Number(ys), mo = Number(mos), d = Number(ds);
  const h = Number(hs), mi = Number(mis), s = Number(ss);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  // RFC 3339 allows second 60 (leap second); it is folded into the next second.
  if (h > 23 || mi > 59 || s > 60) return undefined;
  const ms = frac === '' ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  let offsetMin = 0;
  if (offset !== 'Z' && offset !== 'z') {
    const oh = Number(offset.slice(1, 3)), om = Number(offset.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (offset[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear undoes that.
  const fixed = y < 100 ? new Date(utc).setUTCFullYear(y) : utc;
  const out = fixed - offsetMin * 60_000;
  return Number.isFinite(out) && Math.abs(out) <= MAX_DATE_MS ? out : undefined;
}

/**
 * A §4.6 point in time as epoch ms: an integer number (taken as epoch ms) or an RFC 3339 string.
 * Returns `undefined` for any other value, including non-integer numbers and non-finite values.
 */
export function toEpochMs(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && Math.abs(value) <= MAX_DATE_MS ? value : undefined;
  }
  return typeof value === 'string' ? parseRfc3339(value) : undefined;
}
