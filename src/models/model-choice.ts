/**
 * The person's model choice from the playground's picker, kept in this browser (IndexedDB
 * `rcp-models`, so the worker can read it: workers have no localStorage) and applied over
 * /models/config.json's `embedder` when the worker starts. A switch is announced on a
 * BroadcastChannel so other tabs restart on the same model (two workers with different models
 * would keep re-embedding the shared index for each other).
 */
import { openDB } from 'idb';
import { isValidFolderName } from './model-folder.ts';
import type { EmbedDtype } from './settings.ts';

const DB = 'rcp-models';
const STORE = 'choice';
const KEY = 'embedder';
export const MODEL_CHANNEL = 'rcp-models';

export interface ModelChoice {
  embedder: string;
  dtype?: EmbedDtype;
}

const open = () => openDB(DB, 1, { upgrade: (db) => void db.createObjectStore(STORE) });

/** The stored choice, or undefined (none, or IndexedDB unavailable). */
export async function readModelChoice(): Promise<ModelChoice | undefined> {
  if (typeof indexedDB === 'undefined') return undefined;
  try {
    const db = await open();
    const v = (await db.get(STORE, KEY)) as ModelChoice | undefined;
    db.close();
    return v && isValidFolderName(v.embedder) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Stores the choice (undefined = back to /models/config.json) and tells the other tabs. */
export async function writeModelChoice(choice: ModelChoice | undefined): Promise<void> {
  if (choice && !isValidFolderName(choice.embedder)) throw new Error(`'${choice.embedder}' is not a model folder name`);
  const db = await open();
  if (choice) await db.put(STORE, choice, KEY);
  else await db.delete(STORE, KEY);
  db.close();
  const channel = new BroadcastChannel(MODEL_CHANNEL);
  channel.postMessage({ type: 'model-changed', choice });
  channel.close();
}
