/**
 * The query-side tokenizer of static-model bundles over a vocabulary read in shards: greedy
 * longest-match WordPiece as transformers.js runs it, and the keys it asks for round by round
 * (test/bundle/bundle-static.test.ts checks it against the real models' tokenizers).
 */
import { describe, expect, it } from 'vitest';
import { pieceKey, type StaticTokenizer } from '../../src/bundle/static-format.ts';
import { normalizeText, tokenize, tokenizeStep } from '../../src/bundle/static-tokenizer.ts';

const WP: StaticTokenizer = { kind: 'wordpiece', lowercase: true, stripAccents: true, chineseChars: true, cleanText: true, unkId: 1, prefix: '##', maxChars: 100 };
const PIECES = ['[PAD]', '[UNK]', 'un', 'unaff', 'aff', '##aff', '##able', '##a', '##b', '##l', '##e', 'a', 'b', 'cafe', '!', 'x'];
const VOCAB = new Map(PIECES.map((p, i) => [p, i]));
const id = (p: string): number => VOCAB.get(p)!;

describe('static-model query tokenizer', () => {
  it('normalises as BertNormalizer: lowercase, accents stripped, controls dropped, CJK padded', () => {
    expect(normalizeText(WP, 'Café\u0000 NAÏVE\t中文')).toBe('cafe naive  中  文 ');
  });

  it('splits into WordPiece pieces by greedy longest match, an unmatched rest making the word unknown', () => {
    expect(tokenize(WP, 'unaffable', VOCAB)).toEqual([id('unaff'), id('##able')]);
    expect(tokenize(WP, 'Café!', VOCAB)).toEqual([id('cafe'), id('!')]);
    expect(tokenize(WP, 'ab', VOCAB)).toEqual([id('a'), id('##b')]);
    expect(tokenize(WP, 'unaffz x', VOCAB)).toEqual([WP.unkId, id('x')]);
  });

  it('asks for one key per step of the match, two-character keys before one-character ones', () => {
    const read = new Set<string>();
    const partial = new Map<string, number>();
    const rounds: string[][] = [];
    for (;;) {
      const step = tokenizeStep(WP, 'unaffable ab', (k) => read.has(k), partial);
      if (step.ids) {
        expect(step.ids).toEqual([id('unaff'), id('##able'), id('a'), id('##b')]);
        break;
      }
      rounds.push([...step.missing].sort());
      for (const k of step.missing) read.add(k);
      // What the shards of those keys hold.
      for (const p of PIECES) if (step.missing.has(pieceKey(p, '##'))) partial.set(p, id(p));
    }
    // 'un…' and 'ab' first; then '##ab' (for 'able') and 'a' (no two-character piece 'ab…'); then '##b'.
    expect(rounds).toEqual([['ab', 'un'], ['#ab', 'a'], ['#b']]);
  });
});
