/**
 * Adds documents in batches with `index/add` (chunk + contextual), reporting progress from the
 * server's `notifications/progress` within a batch and from completed batches between them.
 * Cancelling aborts the in-flight batch (the client sends `notifications/cancel`) and stops.
 */
import type { RcpClient } from '../client/rcp-client.ts';
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { IndexDocument } from '../protocol/types.ts';

/**
 * Batch bounds: up to 256 documents (a batch of short ones costs about as much as one of 64: the
 * commit dominates; fewer batches make a fresh index complete sooner) and few enough
 * characters that one write takes well under a second — a search sent meanwhile waits for the
 * write before it on the same session (read-your-writes), so short writes keep search snappy.
 * The first batch is smaller still, so a fresh index becomes searchable almost at once.
 */
export const BATCH_DOCS = 256;
export const BATCH_CHARS = 250_000;
export const FIRST_BATCH_CHARS = 60_000;
/** A big write may embed thousands of chunks. */
const ADD_TIMEOUT_MS = 300_000;

export interface IngestProgress {
  done: number;
  total: number;
  /** 0–1 by characters (documents differ wildly in size). */
  fraction: number;
  etaMs?: number;
  message?: string;
}

export interface IngestResult {
  added: number;
  chunks: number;
  cancelled: boolean;
}

/**
 * `docs` reordered so that the first `chars` characters (the first batch) take documents from every
 * group in turn (round robin, each group in its own order), and the rest follow in their order: a
 * fresh index that seeds a corpus of several sources answers a query about any of them after its
 * first commit, not after the sources before it.
 */
export function crossSectionFirst<T extends { text: string }>(docs: readonly T[], groupOf: (d: T) => string, chars = FIRST_BATCH_CHARS): T[] {
  const groups = new Map<string, T[]>();
  for (const d of docs) {
    const g = groupOf(d);
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(d);
  }
  const lanes = [...groups.values()];
  const at = lanes.map(() => 0);
  const first = new Set<T>();
  let taken = 0;
  for (let progressed = true; progressed && taken < chars; ) {
    progressed = false;
    for (let l = 0; l < lanes.length && taken < chars; l++) {
      const d = lanes[l][at[l]];
      if (!d) continue;
      at[l]++;
      progressed = true;
      // A document that would overflow the batch is left for later (a long address would fill it alone).
      if (first.size > 0 && taken + d.text.length > chars) continue;
      first.add(d);
      taken += d.text.length;
    }
  }
  return [...first, ...docs.filter((d) => !first.has(d))];
}

/** Splits documents into batches bounded by count and characters (a lone huge document is its own batch). */
export function batches(docs: readonly IndexDocument[], maxDocs = BATCH_DOCS, maxChars = BATCH_CHARS, firstChars = FIRST_BATCH_CHARS): IndexDocument[][] {
  const out: IndexDocument[][] = [];
  let cur: IndexDocument[] = [];
  let chars = 0;
  for (const d of docs) {
    const limit = out.length === 0 ? Math.min(firstChars, maxChars) : maxChars;
    if (cur.length > 0 && (cur.length >= maxDocs || chars + d.text.length > limit)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(d);
    chars += d.text.length;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** What an ingest reports while it runs, and how it is cancelled. */
export interface IngestOptions {
  signal?: AbortSignal;
  onProgress?(p: IngestProgress): void;
  onBatch?(added: number): void;
}

export async function ingest(client: RcpClient, docs: readonly IndexDocument[], opts: IngestOptions = {}): Promise<IngestResult> {
  const totalChars = docs.reduce((n, d) => n + d.text.length, 0) || 1;
  const started = performance.now();
  let doneDocs = 0;
  let doneChars = 0;
  let chunks = 0;
  const report = (extraChars: number, extraDocs: number, message?: string) => {
    const fraction = Math.min(1, (doneChars + extraChars) / totalChars);
    const elapsed = performance.now() - started;
    const etaMs = fraction > 0.02 && fraction < 1 ? (elapsed / fraction) * (1 - fraction) : undefined;
    opts.onProgress?.({ done: doneDocs + extraDocs, total: docs.length, fraction, etaMs, message });
  };
  report(0, 0);
  for (const batch of batches(docs)) {
    if (opts.signal?.aborted) return { added: doneDocs, chunks, cancelled: true };
    const chars = batch.reduce((n, d) => n + d.text.length, 0);
    try {
      const res = await client.request(
        'index/add',
        { documents: batch, chunk: true, contextual: true },
        {
          signal: opts.signal,
          timeoutMs: ADD_TIMEOUT_MS,
          onProgress: (p) => report(chars * p.progress, Math.floor(batch.length * p.progress), p.message),
        },
      );
      chunks += res.chunks ?? 0;
    } catch (e) {
      if (e instanceof RcpError && e.code === ErrorCode.Cancelled) return { added: doneDocs, chunks, cancelled: true };
      throw e;
    }
    doneDocs += batch.length;
    doneChars += chars;
    report(0, 0);
    opts.onBatch?.(doneDocs);
  }
  return { added: doneDocs, chunks, cancelled: false };
}
