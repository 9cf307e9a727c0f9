/** Small wording helpers shared by the panels. */

/** "1 passage", "2 passages", "1,200 documents". */
export const plural = (n: number, word: string, many = `${word}s`): string => `${n.toLocaleString('en')} ${n === 1 ? word : many}`;

/** A user's text shown back to them, cut to `max` characters with an ellipsis (a pasted book is not echoed whole). */
export const clip = (s: string, max = 80): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
