/**
 * The one prelude of every engine read: the engine is open, its view has caught up with the store
 * (another engine may have committed), and what the read needs of a store read on demand is in
 * memory. Reads that answer a request run as foreground work, so background embedding yields to
 * them (foreground.ts); that is every read of the engine's surface — `retrieve`, `graph`,
 * `documents`, `document`, `facets`, `transform`, `exportDocuments`, `corpusMap`, `quarantine`,
 * `feedback`, `documentFeedback` — since a person or a client waits on each (a background batch
 * defers to them for a bounded time, so a long export cannot stop it).
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError } from '../../protocol/errors.ts';
import type { ForegroundGate } from './foreground.ts';

/** What a read needs resident before it runs (IndexState.resident); `view`: only the current view. */
export type ReadNeed = 'view' | 'documents' | 'everything';

/** The part of IndexState a read's prelude uses. */
export interface ReadableState {
  refresh(): Promise<void>;
  resident(what: 'documents' | 'everything'): Promise<void>;
}

export class ReadGate {
  private isOpen = false;

  constructor(
    private readonly state: ReadableState,
    private readonly foreground: Pick<ForegroundGate, 'track'>,
  ) {}

  /** True once `open()` has loaded the store. */
  get opened(): boolean {
    return this.isOpen;
  }

  /** Called once, by the writer, when the store is loaded. */
  markOpen(): void {
    this.isOpen = true;
  }

  /** -32001 (retryable) before `open()`. */
  assertOpen(): void {
    if (!this.isOpen) throw new RcpError(ErrorCode.BackendUnavailable, 'engine not opened', { detail: 'call open() first', retryable: true });
  }

  /** The prelude alone, untracked (for a read inside one already tracked: the graph's seed retrieves). */
  async ready(need: ReadNeed = 'view'): Promise<void> {
    this.assertOpen();
    await this.state.refresh();
    if (need !== 'view') await this.state.resident(need);
  }

  /** Runs `work` as foreground work, with no prelude (it runs one itself: query/retriever.ts). */
  track<T>(work: () => Promise<T>): Promise<T> {
    return this.foreground.track(work);
  }

  /** Runs `work` after the prelude, as foreground work. */
  read<T>(need: ReadNeed, work: () => Promise<T> | T): Promise<T> {
    return this.foreground.track(async () => {
      await this.ready(need);
      return work();
    });
  }
}
