/**
 * Turning candidates into wire hits: ids, citations, chunk info, text and vectors, and packing them
 * into a token budget. Text is read from the store only here, only for hits being returned.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError } from '../../protocol/errors.ts';
import { copyJson } from '../../protocol/json.ts';
import type { Hit, Unit } from '../../protocol/types.ts';
import type { DocumentReader } from '../state/text-cache.ts';
import type { Candidate } from '../index/view.ts';
import { assertKnown, isCited } from '../index/partial.ts';
import { hitId } from '../index/hit-id.ts';

/** The `[start, end)` a hit's body covers: the chunk, or the whole document for unit "document". */
export function bodyRange(c: Candidate, unit: 'chunk' | 'document'): [number, number] {
  if (!isCited(c.seg, c.local)) throw new Error(`internal: the range of chunk ${c.local} of segment ${c.seg.id} was read before it was loaded`);
  return unit === 'document' ? [0, c.seg.lex.docLengths[c.local]] : [c.seg.lex.starts[c.local], c.seg.lex.ends[c.local]];
}

/** Approximate tokens of a body: ceil(chars / 4). */
export const approxTokens = (chars: number): number => Math.ceil(chars / 4);

/** -32010: a document of the served snapshot was rewritten since, so its text is gone (§7.7.1). */
export class DocumentRewritten extends RcpError {}

/**
 * Fetches the body texts of `cands` (one store read for all their documents). A document whose
 * stored version differs from the candidate's was rewritten after the served snapshot, so its text
 * is no longer retained: that is -32010 (§7.7.1), never another version's text.
 */
export async function loadTexts(store: DocumentReader, cands: readonly Candidate[], unit: 'chunk' | 'document'): Promise<string[]> {
  const wanted = new Map(cands.map((c) => [c.doc.id, c.doc.version]));
  const ids = [...wanted.keys()];
  const docs = await store.getDocuments(ids, [...wanted.values()]);
  const byId = new Map(ids.map((id, i) => [id, docs[i]]));
  return cands.map((c) => {
    const d = byId.get(c.doc.id);
    if (!d || d.version !== c.doc.version) {
      throw new DocumentRewritten(ErrorCode.BackendUnavailable, 'indexVersion no longer available', {
        detail: `the text of document '${c.doc.id}' at index version ${c.doc.version} is no longer retained`,
        retryable: false,
      });
    }
    const [s, e] = bodyRange(c, unit);
    return d.text.slice(s, e);
  });
}

/** Packs hits in rank order while their bodies fit in `budget` tokens; stops at the first that does not. */
export function packBudget(cands: readonly Candidate[], unit: 'chunk' | 'document', budget: number): { count: number; tokens: number } {
  let tokens = 0;
  let count = 0;
  for (const c of cands) {
    const [s, e] = bodyRange(c, unit);
    const t = approxTokens(e - s);
    if (tokens + t > budget) break;
    tokens += t;
    count++;
  }
  return { count, tokens };
}

/** The wire hit of a candidate (without text/vector, which the caller adds). */
export function toHit(c: Candidate, unit: 'chunk' | 'document', unitOut: Unit): Hit {
  assertKnown(c.doc, 'meta');
  const lex = c.seg.lex;
  const [start, end] = bodyRange(c, unit);
  const meta = c.doc.meta;
  const citation: Hit['citation'] = { source: c.doc.id, start, end };
  if (typeof meta.title === 'string') citation.title = meta.title;
  const uri = typeof meta.uri === 'string' ? meta.uri : typeof meta.url === 'string' ? meta.url : undefined;
  if (uri !== undefined) citation.uri = uri;
  const chunk: NonNullable<Hit['chunk']> = { docId: c.doc.id, index: lex.chunkIndex[c.local] };
  if (lex.contexts[c.local]) chunk.context = lex.contexts[c.local];
  const hit: Hit = { id: hitId(c, unit), score: c.score, unit: unitOut, scores: { ...c.scores }, citation, chunk };
  if (Object.keys(meta).length > 0) hit.meta = copyJson(meta); // callers may mutate hits
  return hit;
}
