/**
 * A fresh engine of ours for one quality run: its own worker and IndexedDB database (the user's
 * index is never touched), the model the playground runs, and its removal afterwards.
 */
import { createInPageEngine } from '../../client/in-page-engine.ts';
import type { FreshEngine } from './quality-run.ts';

export async function freshEngine(): Promise<FreshEngine> {
  const database = `rcp-quality-${Date.now().toString(36)}`;
  const engine = await createInPageEngine({ database, client: { clientInfo: { name: 'rcp-quality-harness', version: '1' }, defaultTimeoutMs: 600_000 } });
  return {
    client: engine,
    async pending() {
      const s = await engine.status();
      if (s.model?.state === 'failed') return `the model failed to load (${s.model.error ?? 'no reason given'})`;
      // While the model loads, nothing is embedded yet: every chunk waits.
      return s.model?.state === 'loading' ? Math.max(1, s.pendingVectors ?? s.chunks) : (s.pendingVectors ?? 0);
    },
    async dispose() {
      engine.terminate();
      await new Promise<void>((ok) => {
        const r = indexedDB.deleteDatabase(database);
        r.onsuccess = r.onerror = r.onblocked = () => ok();
      });
    },
  };
}
