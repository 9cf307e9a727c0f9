/**
 * The query side of a static model's tokenizer, as transformers.js runs its tokenizer.json
 * (BertNormalizer, BertPreTokenizer, WordPiece or WordLevel, no special tokens added), over a
 * vocabulary read in shards: `neededKeys` says which shards a text can touch before any is read,
 * so they are fetched in one round, then `tokenize` runs on what they hold.
 */
import type { StaticTokenizer } from './static-format.ts';

/** Unicode punctuation and the ASCII symbols BERT treats as punctuation (transformers.js's set). */
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const WORDS = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');
const CONTROL = /^\p{Cc}|\p{Cf}|\p{Co}|\p{Cs}$/u;

/** CJK ideographs, by UTF-16 unit as transformers.js tests them. */
const isChinese = (cp: number): boolean =>
  (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff);

/**
 * BertNormalizer exactly as transformers.js runs it (the bundle's vectors came from it): control
 * characters dropped, whitespace to spaces, CJK padded, lowercase, accents stripped.
 */
export function normalizeText(t: StaticTokenizer, text: string): string {
  let s = text;
  if (t.cleanText) {
    let out = '';
    for (const ch of s) {
      const c = ch.charCodeAt(0);
      if (c === 0 || c === 0xfffd || (ch !== '\t' && ch !== '\n' && ch !== '\r' && CONTROL.test(ch))) continue;
      out += /^\s$/.test(ch) ? ' ' : ch;
    }
    s = out;
  }
  if (t.chineseChars) {
    let out = '';
    for (let i = 0; i < s.length; i++) out += isChinese(s.charCodeAt(i)) ? ` ${s[i]} ` : s[i];
    s = out;
  }
  if (t.lowercase) s = s.toLowerCase();
  if (t.stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
  return s;
}

/** BertPreTokenizer: runs of non-space, non-punctuation characters, and each punctuation mark alone. */
export const preTokenize = (text: string): string[] => text.trim().match(WORDS) ?? [];

/** The vocabulary keys (see static-format.ts vocabShardOf) any tokenization of `text` may look up. */
export function neededKeys(t: StaticTokenizer, text: string): Set<string> {
  const keys = new Set<string>();
  for (const word of preTokenize(normalizeText(t, text))) {
    const chars = [...word];
    if (chars.length > t.maxChars) continue;
    keys.add(chars[0]);
    if (t.kind === 'wordpiece') for (let i = 1; i < chars.length; i++) keys.add('#' + chars[i]);
  }
  return keys;
}

/** Token ids of `text`, `vocab` holding (at least) every piece of the shards `neededKeys` named. */
export function tokenize(t: StaticTokenizer, text: string, vocab: ReadonlyMap<string, number>): number[] {
  const ids: number[] = [];
  for (const word of preTokenize(normalizeText(t, text))) {
    if (t.kind === 'wordlevel') {
      ids.push(vocab.get(word) ?? t.unkId);
      continue;
    }
    const chars = [...word];
    if (chars.length > t.maxChars) {
      ids.push(t.unkId);
      continue;
    }
    // Greedy longest match first, as WordPiece does; a word with an unmatched rest is one unknown.
    const pieces: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? t.prefix : '') + chars.slice(start, end).join('');
        found = vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) {
        pieces.length = 0;
        pieces.push(t.unkId);
        break;
      }
      pieces.push(found);
      start = end;
    }
    ids.push(...pieces);
  }
  return ids;
}
