/**
 * The sample corpus (scripts/build-sample.ts): the declarations come first, one document per
 * article in each of the dozen languages, with `meta.lang` set (ISO 639-1, as detection stores it),
 * then Moby-Dick and the State of the Union addresses; ids are unique and stable across builds.
 */
import { describe, expect, it } from 'vitest';
import { buildSample, UDHR_LANGUAGES } from '../../scripts/build-sample.ts';

describe('sample corpus', () => {
  const corpus = buildSample();
  const udhr = corpus.documents.filter((d) => d.meta.source === 'udhr');

  it('holds every article of the declaration in each language, first, with its language', () => {
    expect(corpus.documents.slice(0, udhr.length).every((d) => d.meta.source === 'udhr')).toBe(true);
    const langs = [...new Set(udhr.map((d) => d.meta.lang))];
    expect(langs).toEqual(['en', 'de', 'fr', 'es', 'ru', 'el', 'ar', 'hi', 'th', 'zh', 'ja', 'ko']);
    expect(langs).toHaveLength(UDHR_LANGUAGES.length);
    for (const lang of langs) {
      const articles = udhr.filter((d) => d.meta.lang === lang).map((d) => d.meta.article);
      expect(articles, lang).toEqual([0, ...Array.from({ length: 30 }, (_, i) => i + 1)]);
    }
    expect(udhr.every((d) => d.text.trim().length >= 15 && d.meta.tags.includes('udhr'))).toBe(true);
    expect(udhr.find((d) => d.id === 'udhr-jpn-18')?.text).toContain('宗教');
  });

  it('ids are unique and the build is deterministic', () => {
    expect(new Set(corpus.documents.map((d) => d.id)).size).toBe(corpus.documents.length);
    expect(buildSample().version).toBe(corpus.version);
    expect(corpus.documents.some((d) => d.meta.source === 'moby-dick')).toBe(true);
    expect(corpus.documents.some((d) => d.meta.source === 'sotu')).toBe(true);
  });
});
