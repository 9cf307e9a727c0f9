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

  it('a long unspaced run is segmented in windows exactly as a whole, and a pathological one is bounded', () => {
    const seg = new Intl.Segmenter(undefined, { granularity: 'word' });
    // 4,100 characters: five windows. The analyzer NFKC-normalises first (Thai SARA AM decomposes).
    const thai = 'ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอน'.repeat(100);
    const whole = [...seg.segment(thai.normalize('NFKC'))].filter((s) => s.isWordLike).map((s) => s.segment);
    expect(a.indexTerms(thai)).toEqual(whole);
    // 30,000 characters that are no word: every character still ends up in some term.
    const junk = 'ก'.repeat(30_000);
    expect(a.indexTerms(junk).join('')).toBe(junk);
    expect(a.termSpans(junk).at(-1)?.end).toBe(junk.length);
  });

  it('cjk: words (Intl.Segmenter) or both instead of bigrams, with its own analyzer id', () => {
    const words = createAnalyzer({ cjk: 'words' });
    expect(words.indexTerms('我该去睡觉了')).toEqual(['我', '该去', '睡觉', '了']);
    expect(words.queryTerms('睡觉')).toEqual(['睡觉']);
    expect(words.termSpans('我该去睡觉了').map((t) => [t.term, t.start, t.end])).toEqual([['我', 0, 1], ['该去', 1, 3], ['睡觉', 3, 5], ['了', 5, 6]]);
    const both = createAnalyzer({ cjk: 'both' });
    // Words of three or more characters are added to the bigrams (shorter ones already are a unigram or bigram).
    expect(both.indexTerms('図書館に行く')).toEqual([...a.indexTerms('図書館に行く'), '図書館']);
    expect(new Set([a.id, words.id, both.id]).size).toBe(3);
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
