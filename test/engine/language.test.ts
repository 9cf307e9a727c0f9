/**
 * Language detection at add (src/engine/analysis/language.ts, eld): a document without `meta.lang`
 * gets the detected language there, one that has it keeps its own, and `lang` filters like any
 * keyword. Texts no detector can be sure of (numbers, a few letters) get no `lang` rather than a guess.
 */
import { describe, expect, it } from 'vitest';
import { loadLanguageDetector } from '../../src/engine/analysis/language.ts';
import { Engine } from '../../src/engine/engine.ts';
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

const DOCS = [
  { id: 'en', text: 'All human beings are born free and equal in dignity and rights. They are endowed with reason and conscience.' },
  { id: 'de', text: 'Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft und Gewissen begabt.' },
  { id: 'ru', text: 'Все люди рождаются свободными и равными в своем достоинстве и правах. Они наделены разумом и совестью.' },
  { id: 'zh', text: '人人生而自由,在尊严和权利上一律平等。他们赋有理性和良心,并应以兄弟关系的精神相对待。' },
  { id: 'ar', text: 'يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق. وقد وهبوا عقلاً وضميرًا وعليهم أن يعامل بعضهم بعضًا بروح الإخاء.' },
  { id: 'given', text: 'Alle Menschen sind frei und gleich an Würde und Rechten geboren.', meta: { lang: 'de-CH' } },
  { id: 'digits', text: '1234 5678 90' },
  { id: 'empty', text: '' },
];

describe('language detection at add', () => {
  it('stores the detected language in meta.lang when absent, keeps a given one, guesses nothing for no words', async () => {
    const engine = new Engine({ store: new MemoryStore(), detectLanguage: loadLanguageDetector });
    await engine.open();
    await engine.add(DOCS);
    const lang = async (id: string) => (await engine.document(id))?.meta?.lang;
    expect(await Promise.all(['en', 'de', 'ru', 'zh', 'ar', 'given', 'digits', 'empty'].map(lang))).toEqual(['en', 'de', 'ru', 'zh', 'ar', 'de-CH', undefined, undefined]);
    const german = await retrieveInProcess(engine, { query: 'Menschen', k: 10, filter: { field: 'lang', op: 'eq', value: 'de' } });
    expect(german.hits.map((h) => h.id)).toEqual(['de']);
  });

  it('an engine without a detector leaves meta as given', async () => {
    const engine = new Engine({ store: new MemoryStore() });
    await engine.open();
    await engine.add(DOCS.slice(0, 2));
    expect((await engine.document('de'))?.meta?.lang).toBeUndefined();
  });

  it('the detector reads a long document\'s beginning only, and mixed text gets its dominant language', async () => {
    const detect = await loadLanguageDetector();
    expect(detect(`${DOCS[1].text} `.repeat(2000))).toBe('de');
    expect(detect(`${DOCS[0].text} ${DOCS[0].text} ${DOCS[0].text} Alle Menschen sind frei.`)).toBe('en');
  });
});
