/**
 * Storage in use (navigator.storage.estimate) and a request for persistent storage, so the
 * browser does not evict the index under pressure.
 */
import { byId, formatBytes } from './dom.ts';

export async function requestPersistence(): Promise<boolean | undefined> {
  if (!navigator.storage?.persist) return undefined;
  if (await navigator.storage.persisted?.()) return true;
  return navigator.storage.persist().catch(() => false);
}

export function mountStorageView(): { refresh(): Promise<void> } {
  const out = byId('storage');
  let persisted: boolean | undefined;
  const refresh = async () => {
    if (!navigator.storage?.estimate) {
      out.textContent = 'Storage: unknown in this browser.';
      return;
    }
    const { usage = 0, quota = 0 } = await navigator.storage.estimate();
    out.textContent = `Storage: ${formatBytes(usage)} used of ${formatBytes(quota)} available${persisted === true ? ' · persistent' : persisted === false ? ' · may be evicted under pressure' : ''}.`;
  };
  void requestPersistence().then((p) => {
    persisted = p;
    return refresh();
  });
  return { refresh };
}
