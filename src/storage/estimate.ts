/** What the browser reports about this origin's storage, in bytes. */
export interface StorageEstimateBytes {
  usage: number;
  quota: number;
}

/**
 * `navigator.storage.estimate()` when the runtime has it (for the UI and the bench), else
 * undefined. Never rejects: an estimate is advisory.
 */
export async function estimateBytes(): Promise<StorageEstimateBytes | undefined> {
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
  if (typeof storage?.estimate !== 'function') return undefined;
  try {
    const { usage, quota } = await storage.estimate();
    return { usage: usage ?? 0, quota: quota ?? 0 };
  } catch {
    return undefined;
  }
}
