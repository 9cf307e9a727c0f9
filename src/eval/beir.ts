/**
 * BEIR-format collections (corpus.jsonl `{_id, title?, text}`, queries.jsonl `{_id, text}`,
 * qrels/*.tsv `query-id corpus-id score` with a header) read from text, so the page (files the
 * user picks) and `npm run eval` (files on disk) read them the same way. A malformed line is a
 * `BeirError` naming the file and the line, never a crash or a silent skip.
 */

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

/** Query id → document id → graded relevance (> 0 relevant). */
export type Qrels = Map<string, Map<string, number>>;

export interface BeirCollection {
  name: string;
  corpus: BeirDoc[];
  queries: BeirQuery[];
  qrels: Qrels;
}

export class BeirError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file} line ${line}: ${detail}`);
    this.name = 'BeirError';
  }
}

function* jsonl(text: string, file: string): Generator<[Record<string, unknown>, number]> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '').replace(/^\uFEFF/, '');
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new BeirError(file, i + 1, `not JSON: ${line.slice(0, 60)}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeirError(file, i + 1, 'not a JSON object');
    yield [v as Record<string, unknown>, i + 1];
  }
}

const idOf = (v: unknown, file: string, line: number): string => {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw new BeirError(file, line, `_id must be a non-empty string or a number, got ${JSON.stringify(v)}`);
};

export function parseCorpus(text: string, file = 'corpus.jsonl'): BeirDoc[] {
  const out: BeirDoc[] = [];
  const seen = new Set<string>();
  for (const [o, line] of jsonl(text, file)) {
    const id = idOf(o._id, file, line);
    if (seen.has(id)) throw new BeirError(file, line, `_id ${id} appears twice`);
    seen.add(id);
    if (o.text !== undefined && typeof o.text !== 'string') throw new BeirError(file, line, 'text must be a string');
    if (o.title !== undefined && o.title !== null && typeof o.title !== 'string') throw new BeirError(file, line, 'title must be a string');
    out.push({ id, title: typeof o.title === 'string' ? o.title : '', text: typeof o.text === 'string' ? o.text : '' });
  }
  if (out.length === 0) throw new BeirError(file, 1, 'no documents');
  return out;
}

export function parseQueries(text: string, file = 'queries.jsonl'): BeirQuery[] {
  const out: BeirQuery[] = [];
  for (const [o, line] of jsonl(text, file)) {
    if (typeof o.text !== 'string') throw new BeirError(file, line, 'text must be a string');
    out.push({ id: idOf(o._id, file, line), text: o.text });
  }
  if (out.length === 0) throw new BeirError(file, 1, 'no queries');
  return out;
}

/** qrels TSV: a header line (skipped when its score column is not a number), then `qid <tab> docid <tab> score`. */
export function parseQrels(text: string, file = 'qrels/test.tsv'): Qrels {
  const out: Qrels = new Map();
  const lines = text.split('\n');
  let first = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line.trim() === '') continue;
    const header = first;
    first = false;
    const cols = line.split('\t');
    if (cols.length < 3) throw new BeirError(file, i + 1, `expected query-id, corpus-id and score separated by tabs, got ${JSON.stringify(line.slice(0, 60))}`);
    const score = Number(cols[cols.length - 1]);
    if (!Number.isFinite(score) || cols[cols.length - 1].trim() === '') {
      if (header) continue; // the header line
      throw new BeirError(file, i + 1, `score ${JSON.stringify(cols[cols.length - 1])} is not a number`);
    }
    const [q, d] = [cols[0].trim(), cols[cols.length === 3 ? 1 : 2].trim()]; // TREC's 4-column form: qid 0 docid score
    if (!q || !d) throw new BeirError(file, i + 1, 'empty query-id or corpus-id');
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, score);
  }
  if (out.size === 0) throw new BeirError(file, 1, 'no judgements');
  return out;
}

export function parseCollection(name: string, files: { corpus: string; queries: string; qrels: string; qrelsName?: string }): BeirCollection {
  return { name, corpus: parseCorpus(files.corpus), queries: parseQueries(files.queries), qrels: parseQrels(files.qrels, files.qrelsName ?? 'qrels/test.tsv') };
}

/** The queries that have at least one relevant judgement: the ones every metric averages over. */
export const judgedQueries = (c: BeirCollection): BeirQuery[] => c.queries.filter((q) => [...(c.qrels.get(q.id)?.values() ?? [])].some((g) => g > 0));

/** The corpus as `index/add` documents: the title travels as `meta.title` (indexed as context with `contextual: true`). */
export function beirDocuments(c: BeirCollection, withTitles = true): { id: string; text: string; meta: Record<string, unknown> }[] {
  return c.corpus.map((d) => ({ id: d.id, text: d.text, meta: withTitles && d.title ? { title: d.title } : {} }));
}
