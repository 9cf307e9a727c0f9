/**
 * The models' log: load history (device choice, fallbacks, failures, precomputed tables) for RCP
 * clients that opted into `notifications/log` (§17.1). A late subscriber first receives the last
 * lines, so a session that connects after a fallback still hears of it; warnings and errors also
 * go to the console, for a person with the developer tools open.
 */
export type ModelLogLevel = 'info' | 'warning' | 'error';
export type ModelEventListener = (level: ModelLogLevel, message: string, data?: unknown) => void;

/** Lines a late subscriber still receives. */
const REPLAY_LINES = 32;

export class ModelLog {
  private readonly history: [level: ModelLogLevel, message: string, data?: unknown][] = [];
  private readonly listeners = new Set<ModelEventListener>();

  emit(level: ModelLogLevel, message: string, data?: unknown): void {
    this.history.push([level, message, data]);
    if (this.history.length > REPLAY_LINES) this.history.shift();
    for (const l of this.listeners) l(level, message, data);
    if (level !== 'info') console.warn(`[models] ${message}`);
  }

  /** The history so far, then every new line; returns an unsubscribe function. */
  subscribe(listener: ModelEventListener): () => void {
    for (const [level, message, data] of this.history) listener(level, message, data);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
