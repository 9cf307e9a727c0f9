/**
 * A model that loads on first use: `get()` starts the load if none is under way, and after a
 * failed one starts a fresh load once RETRY_AFTER_MS have passed (a fetch hiccup heals without a
 * reload); every caller of a failed load gets a ModelUnavailableError (the server answers -32010,
 * retryable) that names the model.
 */
import { errorMessage } from './devices.ts';
import { ModelUnavailableError } from '../engine/errors.ts';

export const RETRY_AFTER_MS = 2_000;

export class LazyLoad<T> {
  private loading: Promise<T> | undefined;
  private failedAt: number | undefined;

  constructor(
    /** Names the model in errors, e.g. `cross-encoder ms-marco-MiniLM-L-6-v2`. */
    private readonly what: string,
    private readonly load: () => Promise<T>,
  ) {}

  get(): Promise<T> {
    if (!this.loading || (this.failedAt !== undefined && Date.now() - this.failedAt >= RETRY_AFTER_MS)) {
      this.failedAt = undefined;
      const loading = this.load();
      loading.catch(() => (this.failedAt = Date.now()));
      this.loading = loading;
    }
    return this.loading.catch((e: unknown) => {
      throw new ModelUnavailableError(`${this.what} is unavailable: ${errorMessage(e)}`, e);
    });
  }

  /** The loaded model, if a load was started and succeeded (undefined otherwise). */
  async settled(): Promise<T | undefined> {
    return this.loading?.catch(() => undefined);
  }
}
