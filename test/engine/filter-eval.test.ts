import { describe, expect, it } from 'vitest';
import { compareCodePoints, compileFilter } from '../../src/engine/query/filter-eval.ts';
import { filterFieldTypes, validateFilter } from '../../src/protocol/filter.ts';
import type { Capabilities } from '../../src/protocol/types.ts';

const CAP: NonNullable<Capabilities['filter']> = {
  fields: { lang: 'keyword', tags: 'keyword', body: 'text', year: 'int', score: 'float', draft: 'bool', published: 'date' },
};
const TYPES = filterFieldTypes(CAP);
/** Validates like the server does, then compiles. */
const pred = (filter: unknown, cap = CAP): ((m: Record<string, unknown>) => boolean) =>
  compileFilter(validateFilter(filter, cap), filterFieldTypes(cap));

const DOCS: Record<string, Record<string, unknown>> = {
  a: { lang: 'en', tags: ['news', 'tech'], body: 'Attention is all you need', year: 2017, score: 0.9, draft: false, published: '2017-06-12T00:00:00Z' },
  b: { lang: 'fr', tags: ['blog'], body: 'Le transformeur', year: 2023, score: 0.2, draft: true, published: Date.UTC(2023, 4, 1) },
  c: { lang: 'EN', year: 2023, published: 'not a date' },
  d: {},
  e: { lang: null, tags: [], year: 2020.5 },
};
const matching = (filter: unknown): string[] => Object.keys(DOCS).filter((id) => pred(filter)(DOCS[id]));

describe('§8 filter evaluation', () => {
  it('§8 eq/ne: case-sensitive strings; missing field → eq false, ne true', () => {
    expect(matching({ field: 'lang', op: 'eq', value: 'en' })).toEqual(['a']);
    expect(matching({ field: 'lang', op: 'ne', value: 'en' })).toEqual(['b', 'c', 'd', 'e']);
  });

  it('§4.6 a null meta value counts as missing', () => {
    expect(matching({ field: 'lang', op: 'exists', value: true })).toEqual(['a', 'b', 'c']);
    expect(matching({ field: 'lang', op: 'exists', value: false })).toEqual(['d', 'e']);
    expect(matching({ field: 'lang', op: 'exists' })).toEqual(['a', 'b', 'c']);
  });

  it('§8 array-valued meta matches eq/in when any element matches; ne/nin are their negation', () => {
    expect(matching({ field: 'tags', op: 'eq', value: 'tech' })).toEqual(['a']);
    expect(matching({ field: 'tags', op: 'in', value: ['blog', 'tech'] })).toEqual(['a', 'b']);
    expect(matching({ field: 'tags', op: 'ne', value: 'tech' })).toEqual(['b', 'c', 'd', 'e']);
    expect(matching({ field: 'tags', op: 'nin', value: ['blog', 'tech'] })).toEqual(['c', 'd', 'e']);
    expect(matching({ field: 'tags', op: 'in', value: [] })).toEqual([]);
    expect(matching({ field: 'tags', op: 'nin', value: [] })).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('§8 contains: element membership on keyword arrays, substring on text', () => {
    expect(matching({ field: 'tags', op: 'contains', value: 'news' })).toEqual(['a']);
    expect(matching({ field: 'tags', op: 'contains', value: 'new' })).toEqual([]);
    expect(matching({ field: 'lang', op: 'contains', value: 'e' })).toEqual([]); // keyword scalar: equality
    expect(matching({ field: 'body', op: 'contains', value: 'all you' })).toEqual(['a']);
    expect(matching({ field: 'body', op: 'contains', value: 'attention' })).toEqual([]); // case-sensitive
  });

  it('§8 contains on a text array matches a substring of any element', () => {
    const p = pred({ field: 'body', op: 'contains', value: 'rans' });
    expect(p({ body: ['one', 'transformer'] })).toBe(true);
    expect(p({ body: ['one', 'two'] })).toBe(false);
  });

  it('§8 ordered comparisons on int/float, integers never equal fractional meta', () => {
    expect(matching({ field: 'year', op: 'gte', value: 2020 })).toEqual(['b', 'c', 'e']);
    expect(matching({ field: 'year', op: 'gt', value: 2020 })).toEqual(['b', 'c', 'e']);
    expect(matching({ field: 'year', op: 'lt', value: 2023 })).toEqual(['a', 'e']);
    expect(matching({ field: 'year', op: 'lte', value: 2017 })).toEqual(['a']);
    expect(matching({ field: 'year', op: 'eq', value: 2020 })).toEqual([]);
    expect(matching({ field: 'score', op: 'gt', value: 0.5 })).toEqual(['a']);
  });

  it('§8 values are not coerced across JSON types', () => {
    const p = pred({ field: 'year', op: 'eq', value: 2023 });
    expect(p({ year: '2023' })).toBe(false);
    expect(pred({ field: 'draft', op: 'eq', value: true })({ draft: 1 })).toBe(false);
    expect(pred({ field: 'year', op: 'gt', value: 1 })({ year: '5' })).toBe(false);
  });

  it('§8 bool eq/ne', () => {
    expect(matching({ field: 'draft', op: 'eq', value: true })).toEqual(['b']);
    expect(matching({ field: 'draft', op: 'ne', value: true })).toEqual(['a', 'c', 'd', 'e']);
  });

  it('§4.6 dates compare as epoch ms whether meta holds RFC 3339 or epoch ms', () => {
    expect(matching({ field: 'published', op: 'gte', value: '2020-01-01T00:00:00Z' })).toEqual(['b']);
    expect(matching({ field: 'published', op: 'lt', value: Date.UTC(2020, 0, 1) })).toEqual(['a']);
    expect(matching({ field: 'published', op: 'eq', value: Date.UTC(2017, 5, 12) })).toEqual(['a']);
    expect(matching({ field: 'published', op: 'eq', value: '2017-06-12T02:00:00+02:00' })).toEqual(['a']);
    expect(matching({ field: 'published', op: 'in', value: ['2023-05-01', '1999-01-01'] })).toEqual(['b']);
    // an unparsable meta date matches nothing but ne/nin/exists
    expect(matching({ field: 'published', op: 'ne', value: '2017-06-12' })).toEqual(['b', 'c', 'd', 'e']);
    expect(matching({ field: 'published', op: 'exists', value: true })).toEqual(['a', 'b', 'c']);
  });

  it('§8 and/or/not combine', () => {
    const f = { and: [{ field: 'year', op: 'gte', value: 2017 }, { or: [{ field: 'lang', op: 'eq', value: 'fr' }, { not: { field: 'tags', op: 'exists' } }] }] };
    expect(matching(f)).toEqual(['b', 'c']);
    expect(matching({ not: f })).toEqual(['a', 'd', 'e']);
  });

  it('§8 untyped fields: numbers compare numerically, strings by code point (UTF-8 byte order)', () => {
    const cap = { fields: ['v'] };
    expect(pred({ field: 'v', op: 'gt', value: 10 }, cap)({ v: 9 })).toBe(false);
    expect(pred({ field: 'v', op: 'gt', value: 10 }, cap)({ v: 11 })).toBe(true);
    expect(pred({ field: 'v', op: 'gt', value: 'b' }, cap)({ v: 'ab' })).toBe(false);
    expect(pred({ field: 'v', op: 'gt', value: 'B' }, cap)({ v: 'a' })).toBe(true); // 'a' (0x61) > 'B' (0x42)
    expect(pred({ field: 'v', op: 'gt', value: 10 }, cap)({ v: 'z' })).toBe(false);
    // U+1F600 (UTF-8 F0…) sorts after U+FF5E (UTF-8 EF…) though its UTF-16 lead unit is smaller
    expect(pred({ field: 'v', op: 'gt', value: '\uff5e' }, cap)({ v: '\u{1f600}' })).toBe(true);
    expect(pred({ field: 'v', op: 'contains', value: 'ell' }, cap)({ v: 'hello' })).toBe(true);
    expect(pred({ field: 'v', op: 'contains', value: 3 }, cap)({ v: [1, 3] })).toBe(true);
    expect(pred({ field: 'v', op: 'contains', value: 'ell' }, cap)({ v: ['hello'] })).toBe(false); // array: membership
  });

  it('compareCodePoints orders by code point', () => {
    expect(compareCodePoints('a', 'a')).toBe(0);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('\u{1f600}', '\uff5e')).toBeGreaterThan(0);
    expect('\u{1f600}' < '\uff5e').toBe(true); // why the helper exists
  });

  it('§8 a field looked up never comes from the prototype', () => {
    const p = compileFilter({ field: 'toString', op: 'exists', value: true }, TYPES);
    expect(p({})).toBe(false);
    expect(p({ toString: 'x' })).toBe(true);
  });
});
