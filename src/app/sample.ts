/**
 * The built-in sample corpus (public/sample/corpus.json, built by scripts/build-sample.ts): seeded
 * once into an empty index on first run, and loadable again on demand. Ids are stable, so seeding
 * twice (a reload mid-way, two tabs at once) replaces instead of duplicating.
 */
import { RcpError, type ErrorData } from '../protocol/errors.ts';
import type { LargeFrame } from './frame-log.ts';
import type { IngestOptions, IngestResult } from './ingest.ts';
import type { SeederMessage, SeederRequest } from './sample-seeder.worker.ts';

export const SAMPLE_URL = '/sample/corpus.json';
/** Where its precomputed vectors lie (scripts/build-sample-vectors.ts), for the worker's `vectorsBase`. */
export const SAMPLE_VECTORS_BASE = '/sample/';
/** Set when the person cleared the index: an empty index then stays empty on reload. */
const DECLINED_KEY = 'rcp-playground:sample-declined';

/** What a seed reports while it runs (the same as an import's). */
export interface SeedHandlers extends Required<IngestOptions> {
  /** Each frame of the seeding session, as it travelled (a large one as its head and a Blob). */
  onFrame(direction: 'out' | 'in', text: string): void;
  onLargeFrame(direction: 'out' | 'in', frame: LargeFrame): void;
}

/**
 * The sample corpus seeded by its own worker (sample-seeder.worker.ts): started at once, so the
 * corpus is read while the engine starts; `seed` then adds it over a session port of the engine.
 * Used once: the caller terminates it when the seed has ended (or was never needed).
 */
export class SampleSeeder {
  private readonly worker = new Worker(new URL('./sample-seeder.worker.ts', import.meta.url), { type: 'module', name: 'rcp-sample-seeder' });
  private listener: ((m: SeederMessage) => void) | undefined;
  /** A failure before `seed` was called (reading the corpus), reported by `seed`. */
  private early: Error | undefined;

  constructor() {
    this.worker.onmessage = (ev: MessageEvent<SeederMessage>) => {
      if (this.listener) this.listener(ev.data);
      else if (ev.data.type === 'error') this.early ??= errorOf(ev.data);
    };
    this.worker.onerror = (ev) => {
      const e = new Error(`Could not read the sample corpus${ev.message ? `: ${ev.message}` : ''}`);
      if (this.listener) this.listener({ type: 'error', message: e.message });
      else this.early ??= e;
    };
    this.worker.postMessage({ type: 'read', url: new URL(SAMPLE_URL, document.baseURI).href } satisfies SeederRequest);
  }

  /**
   * Adds the corpus (but the documents in `skip`) over `port`, a fresh session of the engine.
   * `onStart` learns how many documents will be added before the first is sent.
   */
  seed(port: MessagePort, skip: readonly string[], clientInfo: { name: string; version: string }, onStart: (total: number) => SeedHandlers | undefined): Promise<IngestResult> {
    return new Promise<IngestResult>((resolve, reject) => {
      if (this.early) return reject(this.early);
      let h: SeedHandlers | undefined;
      this.listener = (m) => {
        if (m.type === 'ready') {
          h = onStart(m.total);
          h?.signal.addEventListener('abort', () => this.worker.postMessage({ type: 'cancel' } satisfies SeederRequest), { once: true });
        } else if (m.type === 'frame') h?.onFrame(m.direction, m.text);
        else if (m.type === 'large-frame') h?.onLargeFrame(m.direction, m.frame);
        else if (m.type === 'progress') h?.onProgress(m.progress);
        else if (m.type === 'batch') h?.onBatch(m.added);
        else if (m.type === 'done') resolve(m.result);
        else reject(errorOf(m));
      };
      this.worker.postMessage({ type: 'seed', port, skip: [...skip], clientInfo } satisfies SeederRequest, [port]);
    });
  }

  terminate(): void {
    this.worker.terminate();
  }
}

/** The seeder's error as the page shows it: an RcpError when it came from the engine. */
const errorOf = (m: Extract<SeederMessage, { type: 'error' }>): Error => (m.code === undefined ? new Error(m.message) : new RcpError(m.code, m.message, m.data as ErrorData | undefined));

/** `seeding` while a seed is under way (so a reload mid-way resumes it), `done` after. */
const STATE_KEY = 'rcp-playground:sample-state';
export type SeedState = 'seeding' | 'done' | undefined;
export const seedState = (): SeedState => (localStorage.getItem(STATE_KEY) as SeedState) ?? undefined;
export const setSeedState = (v: SeedState): void => (v ? localStorage.setItem(STATE_KEY, v) : localStorage.removeItem(STATE_KEY));

export const sampleDeclined = (): boolean => localStorage.getItem(DECLINED_KEY) === '1';
export const setSampleDeclined = (v: boolean): void => (v ? localStorage.setItem(DECLINED_KEY, '1') : localStorage.removeItem(DECLINED_KEY));
