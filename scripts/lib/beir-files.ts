/** A BEIR collection from a folder on disk (corpus.jsonl, queries.jsonl, qrels/test.tsv), parsed by src/eval/beir.ts. */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseCollection, type BeirCollection } from '../../src/eval/beir.ts';

export function readCollection(dir: string): BeirCollection {
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return parseCollection(basename(dir.replace(/\/+$/, '')), { corpus: read('corpus.jsonl'), queries: read('queries.jsonl'), qrels: read(join('qrels', 'test.tsv')) });
}
