/**
 * The built-in sample corpus (public/sample/corpus.json, built by scripts/build-sample.ts): seeded
 * once into an empty index on first run, and loadable again on demand. Ids are stable, so seeding
 * twice (a reload mid-way, two tabs at once) replaces instead of duplicating.
 */
import type { IndexDocument } from '../protocol/types.ts';
import type { SampleMessage } from './sample-reader.worker.ts';

export const SAMPLE_URL = '/sample/corpus.json';
/** Where its precomputed vectors lie (scripts/build-sample-vectors.ts), for the worker's `vectorsBase`. */
export const SAMPLE_VECTORS_BASE = '/sample/';
/** Set when the person cleared the index: an empty index then stays empty on reload. */
const DECLINED_KEY = 'rcp-playground:sample-declined';

export interface SampleCorpus {
  version: string;
  documents: IndexDocument[];
}

/** The sample corpus, read and parsed in a worker (sample-reader.worker.ts) so the page stays responsive. */
export function fetchSample(): Promise<SampleCorpus> {
  const worker = new Worker(new URL('./sample-reader.worker.ts', import.meta.url), { type: 'module' });
  return new Promise<SampleCorpus>((resolve, reject) => {
    const documents: IndexDocument[] = [];
    let version = '';
    worker.onmessage = (ev: MessageEvent<SampleMessage>) => {
      const m = ev.data;
      if (m.type === 'start') version = m.version;
      else if (m.type === 'documents') documents.push(...m.documents);
      else if (m.type === 'done') resolve({ version, documents });
      else reject(new Error(m.message));
    };
    worker.onerror = (ev) => reject(new Error(`Could not read the sample corpus${ev.message ? `: ${ev.message}` : ''}`));
    worker.postMessage({ url: new URL(SAMPLE_URL, document.baseURI).href });
  }).finally(() => worker.terminate());
}

/** `seeding` while a seed is under way (so a reload mid-way resumes it), `done` after. */
const STATE_KEY = 'rcp-playground:sample-state';
export type SeedState = 'seeding' | 'done' | undefined;
export const seedState = (): SeedState => (localStorage.getItem(STATE_KEY) as SeedState) ?? undefined;
export const setSeedState = (v: SeedState): void => (v ? localStorage.setItem(STATE_KEY, v) : localStorage.removeItem(STATE_KEY));

export const sampleDeclined = (): boolean => localStorage.getItem(DECLINED_KEY) === '1';
export const setSampleDeclined = (v: boolean): void => (v ? localStorage.setItem(DECLINED_KEY, '1') : localStorage.removeItem(DECLINED_KEY));
