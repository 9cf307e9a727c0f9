import 'fake-indexeddb/auto';
import { afterEach, describe, it } from 'vitest';
import type { IndexStore } from '../../src/engine/contracts.ts';
import { openIndexedDbStore } from '../../src/storage/index.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { MemoryLogFolder } from '../../src/storage/recovery/log-files.ts';
import { withRecoveryLog } from '../../src/storage/recovery/logged-store.ts';
import { STORE_CONTRACT } from '../support/store-contract.ts';

/** The same contract runs in real Chromium: e2e/store-contract.spec.ts. */
const opened: IndexStore[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));
let n = 0;

const stores: [string, () => Promise<IndexStore>][] = [
  ['MemoryStore', async () => new MemoryStore()],
  ['MemoryStore with its recovery log', async () => withRecoveryLog(new MemoryStore(), { folder: new MemoryLogFolder(), database: 'contract' })],
  ['IndexedDB store (fake-indexeddb)', async () => {
    const s = await openIndexedDbStore(`contract-${++n}-${Date.now()}`);
    opened.push(s);
    return s;
  }],
];

for (const [name, fresh] of stores) {
  describe(`IndexStore contract: ${name}`, () => {
    for (const c of STORE_CONTRACT) it(c.name, () => c.run(fresh));
  });
}
