/**
 * Issue 23's bad input, through the engine and the server's retrieve front door (the analyzer,
 * language detection at add, sparse retrieval): a mixed-language document is found from each of
 * its languages, a script no analyzer rule knows is indexed as it is written, a query in a
 * language the index does not hold gets an empty answer (not an error, not noise), and empty
 * text, a very long word, emoji and control characters neither crash nor lose the text around
 * them. (The e5 tokenizer's edge cases are in test/models/e5-parity.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { loadLanguageDetector } from '../../src/engine/analysis/language.ts';
import { ids, makeEngine, search } from '../support/engine.ts';

const DOCS = [
  { id: 'mixed', text: 'The meeting is in Berlin. Das Treffen ist morgen früh. 会議は明日の朝です。 Встреча завтра утром.' },
  { id: 'mostly-de', text: 'Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft und Gewissen begabt und sollen einander im Geist der Brüderlichkeit begegnen. See the English summary.' },
  // Cherokee, Ol Chiki and Linear B (outside the BMP): no script rule of the analyzer names them.
  { id: 'cherokee', text: 'ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏂᏴᏫ' },
  { id: 'olchiki', text: 'ᱥᱟᱱᱛᱟᱲᱤ ᱯᱟᱹᱨᱥᱤ' },
  { id: 'linearb', text: '𐀀𐀁𐀂 𐀃𐀄' },
  { id: 'empty', text: '' },
  { id: 'blank', text: '  \n\t \u3000 \u00a0' },
  { id: 'long', text: `${'x'.repeat(100_000)} whale ${'鯨'.repeat(5_000)} ${'ก'.repeat(5_000)} tail` },
  { id: 'emoji', text: '🐳 the blue whale 🐋 swam 👨‍👩‍👧 🇯🇵 far away' },
  { id: 'control', text: '\u0000\u0007harpoon\u001b[31m line\u0085next\u2028sep\ufeff\ufffd lone\ud800surrogate' },
];

async function seeded() {
  const { engine } = await makeEngine({ detectLanguage: loadLanguageDetector });
  const added = await engine.add(DOCS);
  return { engine, added };
}

describe('multilingual and hostile input', () => {
  it('every document is accepted and kept byte for byte', async () => {
    const { engine, added } = await seeded();
    expect(added.ids).toEqual(DOCS.map((d) => d.id));
    for (const d of DOCS) expect((await engine.document(d.id))?.text).toBe(d.text);
  });

  it('a mixed-language document is found from each of its languages', async () => {
    const { engine } = await seeded();
    for (const q of ['meeting', 'Treffen', 'morgen', '会議', '明日', 'встреча', 'завтра']) expect(ids(await search(engine, { query: q, k: 5 })), q).toEqual(['mixed']);
    // A mostly German text is tagged German, and the lang filter finds it by its English words too.
    expect((await engine.document('mostly-de'))?.meta?.lang).toBe('de');
    expect(ids(await search(engine, { query: 'English summary', k: 5, filter: { field: 'lang', op: 'eq', value: 'de' } }))).toEqual(['mostly-de']);
  });

  it('scripts no analyzer rule knows are indexed as written and found by their words', async () => {
    const { engine } = await seeded();
    expect(ids(await search(engine, { query: 'ᎦᏬᏂᎯᏍᏗ', k: 5 }))).toEqual(['cherokee']);
    expect(ids(await search(engine, { query: 'ᱯᱟᱹᱨᱥᱤ', k: 5 }))).toEqual(['olchiki']);
    expect(ids(await search(engine, { query: '𐀃𐀄', k: 5 }))).toEqual(['linearb']);
    // The detector does not know them: no guess is stored.
    for (const id of ['cherokee', 'olchiki', 'linearb']) expect((await engine.document(id))?.meta?.lang).toBeUndefined();
  });

  it('a query in a language the index does not hold answers with no hits, not an error', async () => {
    const { engine } = await seeded();
    for (const q of ['ไม่มีเอกสาร', 'لا توجد وثائق', 'दस्तावेज़ नहीं', 'ყველა ადამიანი']) {
      const r = await search(engine, { query: q, k: 5 });
      expect(r.hits, q).toEqual([]);
    }
  });

  it('a query in a script the index never saw gets a usage note naming it, not an error; a seen script gets none', async () => {
    const { engine } = await seeded();
    const note = async (query: string) => (await search(engine, { query, k: 5 })).usage?.notes?.find((n) => n.includes('no indexed document uses'));
    expect(await note('ყველა ადამიანი')).toBe(
      'the query is written in the Georgian script, which no indexed document uses: its words match nothing here (a cross-lingual dense model still compares meanings)',
    );
    expect(await note('دستاویز नहीं')).toMatch(/the Arabic and Devanagari scripts, which no indexed document/);
    // Thai, Cherokee, Han, Cyrillic and Latin occur in the documents (even where this word does not).
    for (const q of ['ไม่มีเอกสาร', 'ᏣᎳᎩ', '鯨', 'нет документов', 'nothing', '42', '🐳']) expect(await note(q), q).toBeUndefined();
    // Mixed: only the unseen script is named.
    expect(await note('whale ყველა')).toMatch(/the Georgian script/);
  });

  it('empty and whitespace-only texts and queries: no terms, no hits, no error', async () => {
    const { engine } = await seeded();
    for (const q of ['', '   ', '\n\t\u3000', '\u0000\u0007']) expect((await search(engine, { query: q, k: 5 })).hits, JSON.stringify(q)).toEqual([]);
    // The empty documents are there (listable, deletable), they just match nothing.
    expect(await engine.document('blank')).toBeDefined();
    await engine.delete(['empty', 'blank']);
    expect(await engine.document('empty')).toBeUndefined();
  });

  it('a very long word, emoji and control characters leave the words around them searchable', async () => {
    const { engine } = await seeded();
    expect(ids(await search(engine, { query: 'whale', k: 5 })).sort()).toEqual(['emoji', 'long']);
    expect(ids(await search(engine, { query: 'tail', k: 5 }))).toEqual(['long']);
    expect(ids(await search(engine, { query: '鯨鯨', k: 5 }))).toEqual(['long']);
    expect(ids(await search(engine, { query: 'x'.repeat(100_000), k: 5 }))).toEqual(['long']);
    expect(ids(await search(engine, { query: 'blue 🐳 whale', k: 5 }))[0]).toBe('emoji');
    // Emoji are not words: an emoji-only query has no terms and no sparse hits.
    expect((await search(engine, { query: '🐳', k: 5, mode: 'sparse' })).hits).toEqual([]);
    for (const q of ['harpoon', 'line', 'next', 'sep', 'lone', 'surrogate']) expect(ids(await search(engine, { query: q, k: 5 })), q).toEqual(['control']);
  });
});
