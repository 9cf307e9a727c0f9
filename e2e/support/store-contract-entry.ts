/** Bundled by e2e/store-contract.spec.ts into the page: the IndexStore contract over Chromium's own IndexedDB. */
import { openIndexedDbStore } from '../../src/storage/index.ts';
import { STORE_CONTRACT } from '../../test/support/store-contract.ts';

let n = 0;
(window as unknown as { storeContract: unknown }).storeContract = {
  names: STORE_CONTRACT.map((c) => c.name),
  run: (i: number): Promise<void> => STORE_CONTRACT[i].run(() => openIndexedDbStore(`contract-${i}-${++n}-${Date.now()}`)),
};
