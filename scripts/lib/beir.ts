/**
 * Reads a BEIR-format collection from disk (Node only): `corpus.jsonl` ({_id, title?, text}),
 * `queries.jsonl` ({_id, text}) and `qrels/test.tsv`. The metrics are src/eval/metrics.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonl, parseQrels } from '../../src/eval/metrics.ts';

export interface BeirDocument {
  _id: string;
  title?: string;
  text?: string;
}

export interface BeirQuery {
  _id: string;
  text?: string;
}

export interface BeirCollection {
  corpus: BeirDocument[];
  queries: BeirQuery[];
  qrels: Map<string, Map<string, number>>;
}

/** The collection in `dir`; ids are strings whatever the files hold. */
export function readBeir(dir: string): BeirCollection {
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const ids = <T extends { _id: unknown }>(rows: T[]): T[] => rows.map((r) => ({ ...r, _id: String(r._id) }));
  return {
    corpus: ids(parseJsonl<BeirDocument>(read('corpus.jsonl'))),
    queries: ids(parseJsonl<BeirQuery>(read('queries.jsonl'))),
    qrels: parseQrels(read(join('qrels', 'test.tsv'))),
  };
}
