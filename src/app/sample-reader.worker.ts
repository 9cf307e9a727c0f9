/**
 * Reads the sample corpus off the page's main thread: fetching and parsing its 12 MB of JSON in
 * the page was one long task of hundreds of milliseconds on a phone. The documents come back in
 * small messages, so receiving them is many short tasks rather than one long one.
 */
import type { SampleCorpus } from './sample.ts';

/** Documents per message (≈ 30 KB of text each on average). */
const PER_MESSAGE = 8;

export type SampleMessage =
  | { type: 'start'; version: string; total: number }
  | { type: 'documents'; documents: SampleCorpus['documents'] }
  | { type: 'done' }
  | { type: 'error'; message: string };

self.onmessage = async (ev: MessageEvent<{ url: string }>) => {
  const post = (m: SampleMessage) => (self as unknown as Worker).postMessage(m);
  try {
    const res = await fetch(ev.data.url);
    if (!res.ok) throw new Error(`The sample corpus is missing (${res.status}); run npm run sample.`);
    const corpus = (await res.json()) as SampleCorpus;
    post({ type: 'start', version: corpus.version, total: corpus.documents.length });
    for (let i = 0; i < corpus.documents.length; i += PER_MESSAGE) post({ type: 'documents', documents: corpus.documents.slice(i, i + PER_MESSAGE) });
    post({ type: 'done' });
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
};
