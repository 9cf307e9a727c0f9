import { expect, test } from '@playwright/test';
import { pageBundle } from './support/page-bundle.ts';
import { STORE_CONTRACT } from '../test/support/store-contract.ts';

/**
 * The IndexStore contract that test/storage/store-contract.test.ts runs against the memory store
 * and fake-indexeddb, here against real Chromium IndexedDB: the cases are bundled into the page.
 */
let bundle = '';

// The app's CSP rightly refuses inline scripts; this spec injects its own bundled test code.
test.use({ bypassCSP: true });

test.beforeAll(async () => {
  bundle = await pageBundle(new URL('./support/store-contract-entry.ts', import.meta.url), 'storeContractBundle');
});

test.describe('IndexStore contract: IndexedDB store in Chromium', () => {
  STORE_CONTRACT.forEach((c, i) => {
    test(c.name, async ({ page }) => {
      await page.goto('/bridge.html');
      await page.addScriptTag({ content: bundle });
      const error = await page.evaluate(async (index) => {
        const api = (window as unknown as { storeContract: { run(i: number): Promise<void> } }).storeContract;
        try {
          await api.run(index);
          return undefined;
        } catch (e) {
          return String(e);
        }
      }, i);
      expect(error).toBeUndefined();
    });
  });
});
