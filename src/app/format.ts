/** Small wording helpers shared by the panels. */

/**
 * A count with thousands separators ("14,902"), as `toLocaleString('en')` writes it, without Intl:
 * `Number#toLocaleString('en')` builds an ICU formatter on every call (and the page's first one
 * loads locale data), which made the status line's redraws a visible share of the first open's
 * long tasks (scripts/measure-long-frames.ts --profile). Non-integers go to one cached formatter.
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n)) return (decimals ??= new Intl.NumberFormat('en')).format(n);
  const digits = String(Math.abs(n));
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) out = (end > 3 ? ',' : '') + digits.slice(Math.max(0, end - 3), end) + out;
  return n < 0 ? `-${out}` : out;
}
let decimals: Intl.NumberFormat | undefined;

/** "1 passage", "2 passages", "1,200 documents". */
export const plural = (n: number, word: string, many = `${word}s`): string => `${count(n)} ${n === 1 ? word : many}`;

/** A user's text shown back to them, cut to `max` characters with an ellipsis (a pasted book is not echoed whole). */
export const clip = (s: string, max = 80): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
