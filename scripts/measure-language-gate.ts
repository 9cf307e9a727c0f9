/**
 * How often hybrid's query-language gate (src/engine/query/language-gate.ts) fires on the dev
 * collections: per collection, the share of queries eld names a language absent from the corpus
 * (under 1% of its documents), and the share the gate fires on (that, and under half of the
 * query's analysed terms in the corpus). Figures, not a test (docs/multilingual.md).
 * Usage: node --import tsx scripts/measure-language-gate.ts [DIR …]   (default: all of ../shared/eval)
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createAnalyzer } from '../src/engine/analysis/analyzer.ts';
import { loadLanguageDetector } from '../src/engine/analysis/language.ts';
import { ABSENT_SHARE, MAX_TERM_COVERAGE } from '../src/engine/query/language-gate.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { readCollection } from './lib/beir-files.ts';

const EVAL = join(import.meta.dirname, '..', '..', 'shared', 'eval');
const { positionals } = cliArgs({ usage: 'node --import tsx scripts/measure-language-gate.ts [DIR …]', options: {}, positionals: true });
const dirs = positionals.length ? positionals : readdirSync(EVAL).filter((d) => !d.includes('.')).map((d) => join(EVAL, d));
const detect = await loadLanguageDetector();
const analyzer = createAnalyzer();
console.log('| collection | queries | corpus language (most documents) | eld: query language absent | the gate fires |');
console.log('|---|---|---|---|---|');
for (const dir of dirs) {
  const c = readCollection(dir);
  const vocabulary = new Set<string>();
  const languages = new Map<string, number>();
  for (const d of c.corpus) {
    for (const t of analyzer.indexTerms(`${d.title ?? ''} ${d.text}`)) vocabulary.add(t);
    const lang = detect(d.text);
    if (lang) languages.set(lang, (languages.get(lang) ?? 0) + 1);
  }
  const known = [...languages.values()].reduce((a, b) => a + b, 0);
  const top = [...languages].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'none';
  let absent = 0;
  let fires = 0;
  for (const q of c.queries) {
    const lang = detect(q.text);
    if (lang === undefined || (languages.get(lang) ?? 0) >= ABSENT_SHARE * known) continue;
    absent++;
    const terms = analyzer.queryTerms(q.text);
    const coverage = terms.length ? terms.filter((t) => vocabulary.has(t)).length / terms.length : 1;
    if (coverage < MAX_TERM_COVERAGE) fires++;
  }
  const pct = (n: number) => `${((100 * n) / c.queries.length).toFixed(1)}%`;
  console.log(`| ${dir.split('/').pop()} | ${c.queries.length} | ${top} (${known} of ${c.corpus.length} named) | ${pct(absent)} | ${pct(fires)} |`);
}
