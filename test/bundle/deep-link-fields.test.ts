import { describe, expect, it } from 'vitest';
import { deepLink, textDirective } from '../../src/element/deep-link.ts';
import { inferFields } from '../../src/bundle/fields.ts';
import { pageUrl } from '../../cli/read-page.ts';

describe('deep links to passages (text fragments)', () => {
  it('quotes the first non-heading block, whole when short, by its edges when long', () => {
    expect(textDirective('## Usage\nCall it twice.')).toBe('text=Call%20it%20twice.');
    expect(deepLink('/docs/a.html#top', '## Install\nThe quick brown fox jumps over the lazy sleeping dog today')).toBe('/docs/a.html#:~:text=The%20quick%20brown%20fox,lazy%20sleeping%20dog%20today');
  });

  it('drops Markdown syntax and tags, and encodes the characters the directive reserves', () => {
    expect(textDirective('Use **`x-y`**, [the docs](https://e.x/) & <b>more</b>')).toBe('text=Use%20x%2Dy%2C%20the%20docs%20%26%20more');
    expect(deepLink('/p.html', '')).toBe('/p.html');
  });
});

describe('bundle metadata fields', () => {
  it('types each field by every value it takes, and leaves out layout and untypable fields', () => {
    const fields = inferFields([
      { title: 'A', tags: ['x'], year: 2020, date: '2024-03-01', draft: false, url: '/a', pages: 3, mixed: 1, score: 1 },
      { title: 'B', tags: ['y', 'z'], year: 2021, date: '2024-04-01', draft: true, mixed: 'one', score: 1.5, nested: { a: 1 } },
    ]);
    expect(fields).toEqual({ date: 'date', draft: 'bool', score: 'float', tags: 'keyword', title: 'text', year: 'int' });
  });
});

describe('page URLs', () => {
  it('maps paths to the URLs a static host serves', () => {
    expect(pageUrl('guide/index.html', '')).toBe('/guide/');
    expect(pageUrl('guide/intro.md', 'https://docs.example/v2/')).toBe('https://docs.example/v2/guide/intro.html');
    expect(pageUrl('a b.html', '/site')).toBe('/site/a%20b.html');
    expect(pageUrl('post.md', '', '/blog/post/')).toBe('/blog/post/');
  });
});
