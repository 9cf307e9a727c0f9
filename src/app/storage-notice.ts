/**
 * Says when this browser's storage is not what the index relies on (issue 44), found by what the
 * storage API does rather than by the browser's name:
 *  - `ephemeral`: the origin-private file system refuses access (Firefox's private windows do,
 *    with a SecurityError): IndexedDB then lives in memory and nothing outlives the window;
 *  - `unmanaged`: there is no storage manager at all (WebKitGTK): the index is stored, but the
 *    record kept beside it (src/storage/witness.ts) cannot be, so a discarded index cannot be
 *    told from an empty one, and persistence cannot be asked for.
 */
import { byId } from './dom.ts';

export type StorageKind = 'durable' | 'ephemeral' | 'unmanaged';

export const STORAGE_NOTICE: Record<Exclude<StorageKind, 'durable'>, string> = {
  ephemeral: 'This window keeps nothing: the engine works in memory, and your index is not kept after this window closes (a private window).',
  unmanaged: 'This browser has no storage manager: your index is stored, but the playground cannot tell if this browser discards your index, nor ask it to keep it.',
};

/** Which kind of storage `storage` (navigator.storage) gives this page. */
export async function storageKind(storage: Pick<StorageManager, 'getDirectory'> | undefined): Promise<StorageKind> {
  if (typeof storage?.getDirectory !== 'function') return 'unmanaged';
  try {
    await storage.getDirectory();
    return 'durable';
  } catch (e) {
    return (e as { name?: string }).name === 'SecurityError' ? 'ephemeral' : 'durable';
  }
}

/** Shows the notice in `#storage-note` when storage is not durable; logs the kind found. */
export async function mountStorageNotice(): Promise<StorageKind> {
  const kind = await storageKind((navigator as { storage?: StorageManager }).storage);
  console.info(`storage: ${kind}`);
  if (kind !== 'durable') {
    const note = byId('storage-note');
    note.textContent = STORAGE_NOTICE[kind];
    note.hidden = false;
  }
  return kind;
}
