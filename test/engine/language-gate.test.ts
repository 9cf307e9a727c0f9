/**
 * The query-language gate of hybrid (src/engine/query/language-gate.ts): with a cross-lingual
 * embedder, a default hybrid whose query is in a language no indexed document is written in ranks
 * by dense alone (a note says so); a query in the index's language, an explicit fusion, a model
 * that is not cross-lingual or an index holding the query's language keep the sparse list.
 */
import { describe, expect, it } from 'vitest';
import { loadLanguageDetector } from '../../src/engine/analysis/language.ts';
import type { Embedder } from '../../src/engine/contracts.ts';
import { absentQueryLanguage, languageProfile } from '../../src/engine/query/language-gate.ts';
import type { DocEntry } from '../../src/engine/index/view.ts';
import { ids, makeEngine, search } from '../support/engine.ts';

/** A toy "translation" space: English and German words of one concept share a dimension; names embed to nothing. */
const CONCEPTS: Record<string, number> = {
  dog: 0, hund: 0, sleeps: 1, schläft: 1, garden: 2, garten: 2, cat: 3, katze: 3, kitchen: 4, küche: 4, book: 5, buch: 5, reads: 6, liest: 6,
};
class ConceptEmbedder implements Embedder {
  readonly identity = 'test/concepts-8';
  readonly dimension = 8;
  readonly normalized = true;
  constructor(readonly crossLingual: boolean) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(this.dimension);
      for (const w of t.toLowerCase().match(/\p{L}+/gu) ?? []) if (w in CONCEPTS) v[CONCEPTS[w]] += 1;
      v[7] = 0.01; // no zero vectors
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
  }
}

const ENGLISH = [
  { id: 'dog', text: 'In the afternoon the old dog sleeps in the garden under the apple tree, while the children are at school.' },
  { id: 'tom', text: 'Tom told Tom that Tom would be late again, and Tom was not happy about it at all, said Tom.' },
  { id: 'cat', text: 'The cat waits in the kitchen every morning until somebody opens a tin of fish for her breakfast.' },
  { id: 'book', text: 'My grandmother reads a book every evening by the window before she goes to bed early.' },
];
const GERMAN_QUERY = 'Tom sagt, dass der alte Hund am Nachmittag im Garten schläft';

async function englishEngine(crossLingual: boolean, extra: { id: string; text: string }[] = []) {
  const { engine } = await makeEngine({ embedder: new ConceptEmbedder(crossLingual), detectLanguage: loadLanguageDetector });
  await engine.add([...ENGLISH, ...extra]);
  return engine;
}

describe('hybrid with a query in a language the index does not hold', () => {
  it('ranks by dense alone when the embedder is cross-lingual, and says so', async () => {
    const engine = await englishEngine(true);
    const r = await search(engine, { query: GERMAN_QUERY, k: 4, mode: 'hybrid' });
    expect(ids(r)[0]).toBe('dog');
    expect(r.hits.every((h) => h.scores?.sparse === undefined)).toBe(true);
    expect(r.usage?.notes?.join(' ')).toMatch(/query's language \(de\) is not the index's \(en 4\): hybrid ranked by dense alone/);
  });

  it('keeps the sparse list for a model that is not cross-lingual (its dense list would be noise too)', async () => {
    const engine = await englishEngine(false);
    const r = await search(engine, { query: GERMAN_QUERY, k: 4, mode: 'hybrid' });
    expect(r.hits.find((h) => h.id === 'tom')?.scores?.sparse).toBeGreaterThan(0);
    expect(r.usage?.notes?.join(' ') ?? '').not.toMatch(/dense alone/);
  });

  it('keeps it for a query in the index language, for an explicit fusion, and when documents in the query language are present', async () => {
    const engine = await englishEngine(true);
    const english = await search(engine, { query: 'Tom says the old dog sleeps in the garden in the afternoon', k: 4, mode: 'hybrid' });
    expect(english.hits.find((h) => h.id === 'tom')?.scores?.sparse).toBeGreaterThan(0);
    const explicit = await search(engine, { query: GERMAN_QUERY, k: 4, mode: 'hybrid', fusion: { method: 'rrf' } });
    expect(explicit.hits.find((h) => h.id === 'tom')?.scores?.sparse).toBeGreaterThan(0);
    const mixed = await englishEngine(true, [{ id: 'katze', text: 'Die Katze wartet jeden Morgen in der Küche, bis jemand eine Dose Fisch für ihr Frühstück öffnet.' }]);
    const r = await search(mixed, { query: GERMAN_QUERY, k: 5, mode: 'hybrid' });
    expect(r.hits.find((h) => h.id === 'tom')?.scores?.sparse).toBeGreaterThan(0);
  });
});

describe('absentQueryLanguage', () => {
  const entry = (lang?: unknown, unknown?: 'meta'): DocEntry => ({ id: 'x', meta: lang === undefined ? {} : { lang }, version: 1, chunkKeys: [], stamp: 0, ok: false, best: undefined, ...(unknown ? { unknown } : {}) });
  const detect = (t: string) => (t.startsWith('de:') ? 'de' : t.startsWith('?') ? undefined : 'en');
  const none = () => 0; // no query term is in the index

  it('needs a confident query language and an index whose languages are mostly known', () => {
    const english = languageProfile(Array.from({ length: 100 }, () => entry('en')));
    expect(absentQueryLanguage('de: Hund', detect, english, none)).toBe('de');
    expect(absentQueryLanguage('? 42', detect, english, none)).toBeUndefined();
    expect(absentQueryLanguage('the dog', detect, english, none)).toBeUndefined();
    const mostlyUnknown = languageProfile([...Array.from({ length: 40 }, () => entry('en')), ...Array.from({ length: 60 }, () => entry())]);
    expect(absentQueryLanguage('de: Hund', detect, mostlyUnknown, none)).toBeUndefined();
    const unread = languageProfile([entry('en'), ...Array.from({ length: 9 }, () => entry(undefined, 'meta'))]);
    expect(absentQueryLanguage('de: Hund', detect, unread, none)).toBeUndefined();
  });

  it('a profile can leave documents out (the playground\'s built-in sample, for the model advice)', () => {
    const docs = [...Array.from({ length: 30 }, () => entry('de')), ...Array.from({ length: 5 }, () => entry('en'))];
    const sample = new Set(docs.slice(0, 30));
    const mine = languageProfile(docs, (d) => sample.has(d));
    expect(mine.total).toBe(5);
    expect([...mine.counts]).toEqual([['en', 5]]);
    expect(languageProfile(docs).total).toBe(35);
  });

  it('matches region tags to the detector\'s codes and treats a language under 1% of the documents as absent', () => {
    const swiss = languageProfile([...Array.from({ length: 50 }, () => entry('en')), ...Array.from({ length: 50 }, () => entry('de-CH'))]);
    expect(absentQueryLanguage('de: Hund', detect, swiss, none)).toBeUndefined();
    const few = languageProfile([...Array.from({ length: 999 }, () => entry('en')), entry('de')]);
    expect(absentQueryLanguage('de: Hund', detect, few, none)).toBe('de');
  });

  it('keeps the sparse list when most of the query\'s terms are in the index (the detector misnames short English queries)', () => {
    const english = languageProfile(Array.from({ length: 100 }, () => entry('en')));
    expect(absentQueryLanguage('de: VARIABLE CAPACITANCE AMPLIFIERS', detect, english, () => 1)).toBeUndefined();
    expect(absentQueryLanguage('de: VARIABLE CAPACITANCE AMPLIFIERS', detect, english, () => 0.5)).toBeUndefined();
    expect(absentQueryLanguage('de: Tom sagt, der Hund schläft', detect, english, () => 0.2)).toBe('de');
  });
});
