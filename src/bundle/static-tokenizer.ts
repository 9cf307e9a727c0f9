/**
 * The query side of a static model's tokenizer, as transformers.js runs its tokenizer.json
 * (BertNormalizer, BertPreTokenizer, WordPiece or WordLevel, no special tokens added), over a
 * vocabulary read in shards (static-format.ts pieceKey): `tokenizeStep` runs as far as the shards
 * read so far allow and names the keys to read next.
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

/** What a tokenization step found: the ids, or the vocabulary keys it must read first. */
export type TokenizeStep = { ids: number[]; missing?: undefined } | { missing: Set<string>; ids?: undefined };

/**
 * Token ids of `text` when every vocabulary key the greedy match reaches is `loaded` (the pieces
 * of those keys' shards in `vocab`); otherwise the keys to read next (each word stops at its first
 * unread key, so a caller reads them in rounds: one per word piece at most, one for most queries).
 */
export function tokenizeStep(t: StaticTokenizer, text: string, loaded: (key: string) => boolean, vocab: ReadonlyMap<string, number>): TokenizeStep {
  const ids: number[] = [];
  const missing = new Set<string>();
  const need = (key: string): boolean => {
    if (loaded(key)) return true;
    missing.add(key);
    return false;
  };
  for (const word of preTokenize(normalizeText(t, text))) {
    const chars = [...word];
    if (t.kind === 'wordlevel') {
      if (need(chars.slice(0, 2).join(''))) ids.push(vocab.get(word) ?? t.unkId);
      continue;
    }
    if (chars.length > t.maxChars) {
      ids.push(t.unkId);
      continue;
    }
    // Greedy longest match first, as WordPiece does; a word with an unmatched rest is one unknown.
    const pieces: number[] = [];
    let start = 0;
    let unread = false;
    while (start < chars.length) {
      const mark = start > 0 ? '#' : '';
      const head = start > 0 ? t.prefix : '';
      let found: number | undefined;
      let end = chars.length;
      // Pieces of two characters or more first (one shard), then the single character (another).
      if (end - start >= 2) {
        if (!need(mark + chars[start] + chars[start + 1])) {
          unread = true;
          break;
        }
        for (; end - start >= 2 && found === undefined; end--) found = vocab.get(head + chars.slice(start, end).join(''));
        if (found !== undefined) end++;
      }
      if (found === undefined) {
        if (!need(mark + chars[start])) {
          unread = true;
          break;
        }
        found = vocab.get(head + chars[start]);
        end = start + 1;
      }
      if (found === undefined) {
        pieces.length = 0;
        pieces.push(t.unkId);
        break;
      }
      pieces.push(found);
      start = end;
    }
    if (!unread) ids.push(...pieces);
  }
  return missing.size > 0 ? { missing } : { ids };
}

/** Token ids of `text` with the whole vocabulary at hand (tests, and the writer's checks). */
export function tokenize(t: StaticTokenizer, text: string, vocab: ReadonlyMap<string, number>): number[] {
  return tokenizeStep(t, text, () => true, vocab).ids!;
}
