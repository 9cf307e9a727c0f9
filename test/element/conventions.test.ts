import { describe, expect, it } from 'vitest';
import { parseHTML } from 'linkedom';
import { sectionOf, slug } from '../../src/element/anchor.ts';
import { deepLink } from '../../src/element/deep-link.ts';
import { isTextEntry, opensSearch } from '../../src/element/keys.ts';
import { recentSearches, recentKey, type RecentStorage } from '../../src/element/recent.ts';
import { renderRecent, renderResults } from '../../src/element/results-view.ts';
import { BUILT_IN_LANGUAGES, builtIn, builtInNow, count, directionOf, ENGLISH, fill, filterList, resolveStrings, type SearchStrings } from '../../src/element/strings.ts';
import type { Hit } from '../../src/protocol/types.ts';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; isComposing: boolean }> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('the keys that open <rcp-search dialog>', () => {
  it('opens on / unless it is typed into a field, and on Ctrl/⌘-K anywhere', () => {
    expect(opensSearch(key('/'), { tagName: 'BODY' })).toBe(true);
    expect(opensSearch(key('/'), { tagName: 'BUTTON' })).toBe(true);
    expect(opensSearch(key('/'), { tagName: 'INPUT', type: 'checkbox' })).toBe(true);
    expect(opensSearch(key('/'), { tagName: 'INPUT', type: 'text' })).toBe(false);
    expect(opensSearch(key('/'), { tagName: 'INPUT' })).toBe(false); // no type: text
    expect(opensSearch(key('/'), { tagName: 'input', type: 'SEARCH' })).toBe(false);
    expect(opensSearch(key('/'), { tagName: 'TEXTAREA' })).toBe(false);
    expect(opensSearch(key('/'), { tagName: 'SELECT' })).toBe(false);
    expect(opensSearch(key('/'), { tagName: 'DIV', isContentEditable: true })).toBe(false);
    expect(opensSearch(key('/', { ctrlKey: true }), { tagName: 'BODY' })).toBe(false);
    expect(opensSearch(key('/', { isComposing: true }), { tagName: 'BODY' })).toBe(false);
    expect(opensSearch(key('k', { ctrlKey: true }), { tagName: 'TEXTAREA' })).toBe(true);
    expect(opensSearch(key('K', { metaKey: true }), null)).toBe(true);
    expect(opensSearch(key('k'), { tagName: 'BODY' })).toBe(false);
    expect(isTextEntry(undefined)).toBe(false);
  });
});

describe('recent searches', () => {
  const memory = (): RecentStorage & { map: Map<string, string> } => {
    const map = new Map<string, string>();
    return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
  };

  it('keeps the newest first, per bundle, at most max, an equal query moving up', () => {
    const s = memory();
    const a = recentSearches(s, 'https://x.example/a/', 3);
    for (const q of ['one', 'two  words ', 'three', 'ONE', 'four']) a.add(q);
    expect(a.list()).toEqual(['four', 'ONE', 'three']);
    expect(recentSearches(s, 'https://x.example/b/', 3).list()).toEqual([]);
    expect(recentSearches(s, 'https://x.example/a/', 3).list()).toEqual(['four', 'ONE', 'three']); // read back from storage
    a.add('   ');
    expect(a.list()).toHaveLength(3);
    a.clear();
    expect(a.list()).toEqual([]);
    expect(s.map.has(recentKey('https://x.example/a/'))).toBe(false);
  });

  it('survives storage that throws or holds garbage, and keeps nothing with max 0', () => {
    const refusing: RecentStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    const r = recentSearches(refusing, 'u', 5);
    expect(() => r.add('q')).not.toThrow();
    expect(r.list()).toEqual([]);
    const s = memory();
    s.setItem(recentKey('u'), '{"not":"a list"');
    expect(recentSearches(s, 'u', 5).list()).toEqual([]);
    s.setItem(recentKey('u'), JSON.stringify(['ok', 3, null, '']));
    expect(recentSearches(s, 'u', 5).list()).toEqual(['ok']);
    const none = recentSearches(s, 'v', 0);
    none.add('q');
    expect(none.list()).toEqual([]);
    expect(recentSearches(undefined, 'u', 5).list()).toEqual([]);
  });
});

describe('UI strings', () => {
  it('has every string in every built-in language, loaded on demand and picked by the primary subtag', async () => {
    expect(BUILT_IN_LANGUAGES).toEqual(['en', 'de', 'fr', 'es', 'ru', 'el', 'ar', 'he', 'hi', 'th', 'zh', 'ja', 'ko']);
    const keys = Object.keys(ENGLISH).sort();
    const tables: Record<string, SearchStrings> = {};
    expect(builtInNow('ru')).toBeUndefined(); // not loaded yet
    for (const lang of BUILT_IN_LANGUAGES) {
      tables[lang] = await builtIn(lang);
      expect(Object.keys(tables[lang]).sort(), lang).toEqual(keys);
      if (lang !== 'en') expect(tables[lang].placeholder, lang).not.toBe(ENGLISH.placeholder);
    }
    expect(builtInNow('ru')).toBe(tables.ru);
    expect((await builtIn('de-CH')).placeholder).toBe('Suchen');
    expect((await builtIn('zh-Hans')).recent).toBe('最近搜索');
    expect(await builtIn('xx')).toBe(ENGLISH);
    expect(builtInNow('xx')).toBe(ENGLISH);
    expect(await builtIn('')).toBe(ENGLISH);
  });

  it('lets a site replace strings, and names what it cannot take', async () => {
    const { strings, ignored } = resolveStrings(await builtIn('fr'), { placeholder: 'Chercher', result: { other: '{n} trouvailles' }, page: 3, nope: 'x', sections: { one: 'a' } });
    expect(strings.placeholder).toBe('Chercher');
    expect(strings.label).toBe('Rechercher sur ce site');
    expect(count(strings.result, 4, 'fr')).toBe('4 trouvailles');
    expect(ignored.sort()).toEqual(['nope', 'page', 'sections']);
    expect(resolveStrings(ENGLISH, ['x']).ignored).toEqual(['(not an object)']);
  });

  it('fills counts by the language\'s plural rules and lists filters as it writes lists', async () => {
    const ru = await builtIn('ru');
    expect([1, 3, 5, 21].map((n) => count(ru.result, n, 'ru'))).toEqual(['1 результат', '3 результата', '5 результатов', '21 результат']);
    const ar = await builtIn('ar');
    expect([1, 2, 3, 11].map((n) => count(ar.sections, n, 'ar'))).toEqual(['قسم واحد', 'قسمان', expect.stringMatching(/^\S+ أقسام$/), expect.stringMatching(/^\S+ قسمًا$/)]);
    expect(count(ENGLISH.result, 1, 'en')).toBe('1 result');
    expect(count(ENGLISH.result, 2, 'not a tag!!')).toBe('2 results');
    expect(fill(ENGLISH.noResultsFiltered, { query: 'q', filters: filterList([['family', 'string'], ['lang', 'en']], 'en') })).toBe('No results for “q” with family: string and lang: en');
    expect(fill('{a} {b}', { a: 1 })).toBe('1 {b}');
  });

  it('knows which languages are written right to left', () => {
    expect(['ar', 'he', 'fa-IR', 'ur', 'az-Arab'].map(directionOf)).toEqual(['rtl', 'rtl', 'rtl', 'rtl', 'rtl']);
    expect(['en', 'ru', 'ja', 'ku-Latn', 'hi'].map(directionOf)).toEqual(['ltr', 'ltr', 'ltr', 'ltr', 'ltr']);
    expect(directionOf('')).toBeUndefined();
    expect(directionOf(null)).toBeUndefined();
  });
});

describe('section anchors', () => {
  it('derives the id generators give a heading, and the deepest heading of a passage', () => {
    expect(slug('Usage')).toBe('usage');
    expect(slug('`Float32Array( [buffer[, byteOffset]] )`')).toBe('float32array-buffer-byteoffset-');
    expect(slug('What’s new in **v2.0**?')).toBe('whats-new-in-v20');
    expect(slug('Примеры использования')).toBe('примеры-использования');
    expect(sectionOf('Page › Install › On Linux')).toEqual({ path: 'Install › On Linux', heading: 'On Linux' });
    expect(sectionOf('Page')).toBeUndefined();
    expect(sectionOf(undefined)).toBeUndefined();
    expect(deepLink('/a.html#x', 'Some words here', 'on-linux')).toBe('/a.html#on-linux:~:text=Some%20words%20here');
    expect(deepLink('/a.html', '', 'примеры')).toBe(`/a.html#${encodeURIComponent('примеры')}`);
    expect(deepLink('/a.html', 'Some words here')).toBe('/a.html#:~:text=Some%20words%20here');
  });
});

describe('the results view', () => {
  const hit = (id: string, source: string, context: string, text: string): Hit =>
    ({ id, score: 1, text, chunk: { index: 0, context }, citation: { source, title: source.toUpperCase(), uri: `/docs/${source}.html` } }) as unknown as Hit;

  it('groups passages by page with a section count, and links each to its section anchor', () => {
    const { document } = parseHTML('<!doctype html><html><body><div id="l"></div></body></html>');
    const list = document.getElementById('l') as unknown as HTMLElement;
    const hits = [
      hit('a#1', 'a', 'A › Install', 'Run the installer twice.'),
      hit('b#0', 'b', 'B', 'An introduction to b.'),
      hit('a#2', 'a', 'A › Usage › Examples', 'Call it with two arguments.'),
    ];
    const shown = renderResults(list, hits, 'p', { sections: (n) => `${n} sections`, sectionId: (h) => slug(h) });
    const groups = list.querySelectorAll('[part=group]');
    expect(groups.length).toBe(2);
    expect(groups[0].querySelector('[part=page-title]')!.textContent).toBe('A');
    expect(groups[0].querySelector('[part=count]')!.textContent).toBe('2 sections');
    expect([...groups[0].querySelectorAll('[part=section]')].map((s) => s.textContent)).toEqual(['Install', 'Usage › Examples']);
    expect(shown.map((s) => s.href)).toEqual([
      '/docs/a.html#install:~:text=Run%20the%20installer%20twice.',
      '/docs/a.html#examples:~:text=Call%20it%20with%20two%20arguments.',
      '/docs/b.html#:~:text=An%20introduction%20to%20b.',
    ]);
    expect(list.querySelector(`#${shown[1].id}`)!.getAttribute('data-href')).toBe(shown[1].href);
  });

  it('shows recent searches as options that carry their query', () => {
    const { document } = parseHTML('<!doctype html><html><body><div id="l"></div></body></html>');
    const list = document.getElementById('l') as unknown as HTMLElement;
    const shown = renderRecent(list, ['typed arrays', 'utf-8'], 'p', 'Recent searches');
    expect(shown.map((s) => s.query)).toEqual(['typed arrays', 'utf-8']);
    expect(list.querySelector('[part=group-title]')!.textContent).toBe('Recent searches');
    expect([...list.querySelectorAll('[part=recent][role=option]')].map((o) => o.textContent)).toEqual(['typed arrays', 'utf-8']);
    expect(renderRecent(list, [], 'p', 'Recent searches')).toEqual([]);
    expect(list.children.length).toBe(0);
  });
});
