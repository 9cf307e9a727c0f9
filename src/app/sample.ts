/**
 * The built-in sample corpus (public/sample/corpus.json, built by scripts/build-sample.ts): seeded
 * once into an empty index on first run, and loadable again on demand. Ids are stable, so seeding
 * twice (a reload mid-way, two tabs at once) replaces instead of duplicating.
 */
import type { IndexDocument } from '../protocol/types.ts';

export const SAMPLE_URL = '/sample/corpus.json';
/** Where its precomputed vectors lie (scripts/build-sample-vectors.ts), for the worker's `vectorsBase`. */
export const SAMPLE_VECTORS_BASE = '/sample/';
/** Set when the person cleared the index: an empty index then stays empty on reload. */
const DECLINED_KEY = 'rcp-playground:sample-declined';

export interface SampleCorpus {
  version: string;
  documents: IndexDocument[];
}

export async function fetchSample(): Promise<SampleCorpus> {
  const res = await fetch(SAMPLE_URL);
  if (!res.ok) throw new Error(`The sample corpus is missing (${res.status}); run npm run sample.`);
  return (await res.json()) as SampleCorpus;
}

/** `seeding` while a seed is under way (so a reload mid-way resumes it), `done` after. */
const STATE_KEY = 'rcp-playground:sample-state';
export type SeedState = 'seeding' | 'done' | undefined;
export const seedState = (): SeedState => (localStorage.getItem(STATE_KEY) as SeedState) ?? undefined;
export const setSeedState = (v: SeedState): void => (v ? localStorage.setItem(STATE_KEY, v) : localStorage.removeItem(STATE_KEY));

export const sampleDeclined = (): boolean => localStorage.getItem(DECLINED_KEY) === '1';
export const setSampleDeclined = (v: boolean): void => (v ? localStorage.setItem(DECLINED_KEY, '1') : localStorage.removeItem(DECLINED_KEY));
