import { describe, expect, it } from 'vitest';
import { createAnalyzer, foldLatin } from '../../src/engine/analysis/analyzer.ts';

const a = createAnalyzer();

describe('analyzer', () => {
  it('emits CJK bigrams; documents also index single characters, multi-character queries use bigrams only', () => {
    expect(a.indexTerms('东京大学')).toEqual(['东', '京', '大', '学', '东京', '京大', '大学']);
    expect(a.queryTerms('东京大学')).toEqual(['东京', '京大', '大学']);
    expect(a.queryTerms('日本語のテキスト')).toEqual(['日本', '本語', '語の', 'のテ', 'テキ', 'キス', 'スト']);
    expect(a.queryTerms('한국어')).toEqual(['한국', '국어']);
    expect(a.queryTerms('中')).toEqual(['中']);
    // Mixed runs split at the script boundary.
    expect(a.queryTerms('GPU加速')).toEqual(['gpu', '加速']);
  });

  it('a one-character CJK query finds a document containing that character', () => {
    const doc = new Set(a.indexTerms('黒猫がいる'));
    expect(a.queryTerms('猫').every((t) => doc.has(t))).toBe(true);
  });

  it('Greek, Arabic and Hebrew fold accents and points; Thai is split into words', () => {
    expect(a.queryTerms('ΑΘΗΝΑ')).toEqual(a.indexTerms('Αθήνα'));
    expect(a.queryTerms('λόγος')).toEqual(a.indexTerms('ΛΟΓΟΣ'));
    expect(a.queryTerms('كتب')).toEqual(a.indexTerms('كَتَبَ'));
    expect(a.queryTerms('שלום')).toEqual(a.indexTerms('שָׁלוֹם'));
    const thai = a.indexTerms('ภาษาไทยเป็นภาษาที่สวยงาม');
    expect(thai.length).toBeGreaterThan(3);
    expect(thai).toContain(a.queryTerms('ภาษา')[0]);
    expect(thai.join('')).toBe('ภาษาไทยเป็นภาษาที่สวยงาม'); // nothing dropped
  });

  it('a Chinese query matches a Chinese document through shared bigrams', () => {
    const doc = new Set(a.indexTerms('北京大学是中国著名的大学'));
    const q = a.queryTerms('北京大学');
    expect(q.every((t) => doc.has(t))).toBe(true);
  });

  it('folds accents and case, normalises width (NFKC)', () => {
    expect(a.indexTerms('Café NAÏVE Ångström')).toEqual(a.indexTerms('cafe naive angstrom'));
    expect(foldLatin('straße')).toBe('strasse');
    expect(foldLatin('øresund')).toBe('oresund');
    expect(a.indexTerms('ＡＢＣ１２３')).toEqual(['abc123']);
  });

  it('stems English with Porter', () => {
    expect(a.indexTerms('running runs connection connected')).toEqual(['run', 'run', 'connect', 'connect']);
  });

  it('drops no text: every script survives, digits and single letters included', () => {
    const text = 'Привет мир — नमस्ते — مرحبا — Ελλάδα 42 x the';
    const terms = a.indexTerms(text);
    expect(terms).toContain('привет');
    expect(terms).toContain('नमस्ते');
    expect(terms).toContain('مرحبا');
    expect(terms).toContain('42');
    expect(terms).toContain('x');
    expect(terms).toContain('the'); // stopwords stay in documents
    // Every letter/digit of the input appears in some term (after case folding).
    const letters = text.toLowerCase().normalize('NFD').replace(/[^\p{L}\p{N}]/gu, '');
    const joined = terms.join('').normalize('NFD');
    for (const ch of letters) if (!/[a-z]/.test(ch)) expect(joined).toContain(ch);
  });

  it('removes stopwords from queries but falls back when nothing would remain', () => {
    expect(a.queryTerms('the history of the whale')).toEqual(['histori', 'whale']);
    expect(a.queryTerms('to be or not to be')).toEqual(['to', 'be', 'or', 'not', 'to', 'be']);
  });

  it('handles possessives and contractions', () => {
    expect(a.indexTerms("Nam's")).toEqual(['nam']);
    expect(a.indexTerms("O'Neill")).toEqual(['oneil']);
  });
});
