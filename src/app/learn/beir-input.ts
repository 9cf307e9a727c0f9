/**
 * A BEIR collection from what the user gives the page: files or a folder picked (corpus.jsonl,
 * queries.jsonl and a qrels .tsv — `qrels/test.tsv` preferred), or one of the development sets the
 * build copied to /eval/. Errors name the file and line (src/eval/beir.ts).
 */
import { parseCorpus, parseQrels, parseQueries, type BeirCollection } from '../../eval/beir.ts';

declare const __RCP_EVAL_SETS__: string[] | undefined;

/** The development collections this build serves at /eval/<name>/. */
export const exampleSets = (): string[] => (typeof __RCP_EVAL_SETS__ === 'object' && Array.isArray(__RCP_EVAL_SETS__) ? __RCP_EVAL_SETS__ : []);

const pathOf = (f: File): string => (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;

/** Picks the three files out of a selection; says what is missing. */
export async function collectionFromFiles(files: readonly File[]): Promise<BeirCollection> {
  const byName = (name: string) => files.find((f) => f.name === name);
  const corpus = byName('corpus.jsonl');
  const queries = byName('queries.jsonl');
  const tsvs = files.filter((f) => f.name.endsWith('.tsv'));
  const qrels = tsvs.find((f) => pathOf(f).endsWith('qrels/test.tsv')) ?? tsvs.find((f) => f.name === 'test.tsv') ?? tsvs[0];
  const missing = [!corpus && 'corpus.jsonl', !queries && 'queries.jsonl', !qrels && 'a qrels .tsv file'].filter(Boolean);
  if (missing.length) throw new Error(`the selection lacks ${missing.join(', ')} (a BEIR collection: corpus.jsonl, queries.jsonl, qrels/test.tsv)`);
  const dir = pathOf(corpus!).split('/').slice(0, -1).pop();
  return {
    name: dir || 'your collection',
    corpus: parseCorpus(await corpus!.text(), pathOf(corpus!)),
    queries: parseQueries(await queries!.text(), pathOf(queries!)),
    qrels: parseQrels(await qrels!.text(), pathOf(qrels!)),
  };
}

/** A development collection from /eval/<name>/ (same origin). */
export async function exampleCollection(name: string): Promise<BeirCollection> {
  const get = async (f: string) => {
    const r = await fetch(`/eval/${name}/${f}`);
    if (!r.ok) throw new Error(`/eval/${name}/${f}: HTTP ${r.status}`);
    return r.text();
  };
  const [corpus, queries, qrels] = await Promise.all([get('corpus.jsonl'), get('queries.jsonl'), get('qrels/test.tsv')]);
  return { name, corpus: parseCorpus(corpus, `${name}/corpus.jsonl`), queries: parseQueries(queries, `${name}/queries.jsonl`), qrels: parseQrels(qrels, `${name}/qrels/test.tsv`) };
}
