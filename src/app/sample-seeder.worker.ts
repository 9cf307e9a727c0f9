/**
 * Seeds the sample corpus off the page's main thread. It fetches and parses the corpus' 12 MB of
 * JSON, then sends it to the engine with `index/add` over an RCP session of its own (a port the
 * page opened with the control plane's `connect()` and handed over), so the page never receives,
 * clones or serialises the documents: on a phone, that work was the seeding's long tasks. The page
 * gets what it shows: each frame as it travelled (the inspector), the progress and the outcome.
 */
import { RcpClient } from '../client/rcp-client.ts';
import { RcpError } from '../protocol/errors.ts';
import type { IndexDocument } from '../protocol/types.ts';
import { PortTransport } from '../transport/port-transport.ts';
import { HEAD_CHARS, LARGE_FRAME, type LargeFrame } from './frame-log.ts';
import { crossSectionFirst, ingest, type IngestProgress, type IngestResult } from './ingest.ts';

const utf8 = new TextEncoder();

/** Each frame to the page; a large one (the batches of 250 KB) as its head, its length and a Blob. */
const postFrame = (direction: 'out' | 'in', text: string): void =>
  post(text.length > LARGE_FRAME ? { type: 'large-frame', direction, frame: { head: text.slice(0, HEAD_CHARS), bytes: utf8.encode(text).length, body: new Blob([text]) } } : { type: 'frame', direction, text });

/** From the page: read the corpus now; seed it (skipping ids already indexed) on that port; stop. */
export type SeederRequest =
  | { type: 'read'; url: string }
  | { type: 'seed'; port: MessagePort; skip: string[]; clientInfo: { name: string; version: string } }
  | { type: 'cancel' };

/** To the page. `ready`: the documents left to add once `skip` is applied (0: nothing to do). */
export type SeederMessage =
  | { type: 'ready'; total: number }
  | { type: 'frame'; direction: 'out' | 'in'; text: string }
  | { type: 'large-frame'; direction: 'out' | 'in'; frame: LargeFrame }
  | { type: 'progress'; progress: IngestProgress }
  | { type: 'batch'; added: number }
  | { type: 'done'; result: IngestResult }
  | { type: 'error'; message: string; code?: number; data?: unknown };

const post = (m: SeederMessage) => (self as unknown as Worker).postMessage(m);
const stop = new AbortController();
let corpus: Promise<IndexDocument[]> | undefined;

async function read(url: string): Promise<IndexDocument[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`The sample corpus is missing (${res.status}); run npm run sample.`);
  return ((await res.json()) as { documents: IndexDocument[] }).documents;
}

async function seed(port: MessagePort, skip: ReadonlySet<string>, clientInfo: { name: string; version: string }): Promise<void> {
  const all = await corpus!;
  // Its first batch holds some of each source, so a query about any of them finds something at once.
  const docs = crossSectionFirst(
    all.filter((d) => !skip.has(d.id ?? '')),
    (d) => String(d.meta?.source ?? ''),
  );
  post({ type: 'ready', total: docs.length });
  if (docs.length === 0) return post({ type: 'done', result: { added: 0, chunks: 0, cancelled: false } });
  const client = new RcpClient(new PortTransport(port), { clientInfo, onFrame: postFrame });
  await client.connect();
  const result = await ingest(client, docs, { signal: stop.signal, onProgress: (progress) => post({ type: 'progress', progress }), onBatch: (added) => post({ type: 'batch', added }) });
  client.close();
  post({ type: 'done', result });
}

self.onmessage = (ev: MessageEvent<SeederRequest>) => {
  const m = ev.data;
  if (m.type === 'cancel') return stop.abort();
  const job = m.type === 'read' ? (corpus = read(m.url)) : seed(m.port, new Set(m.skip), m.clientInfo);
  job.catch((e: unknown) => post(e instanceof RcpError ? { type: 'error', message: e.rawMessage, code: e.code, data: e.data } : { type: 'error', message: e instanceof Error ? e.message : String(e) }));
};
