import { expect, test } from '@playwright/test';
import { pageBundle } from './support/page-bundle.ts';

/**
 * Our encoder's int8 GEMM in every dot variant, in Chromium's V8 (Node 20 validates relaxed SIMD only
 * behind a flag, so the unit tests run the fixed-width variant alone): the kernels' outputs equal the
 * plain-JS linear layer over row counts around each tile height (test/support/gemm-agreement.ts).
 */
let bundle = '';

// The app's CSP rightly refuses inline scripts; this spec injects its own bundled test code.
test.use({ bypassCSP: true });

test.beforeAll(async () => {
  bundle = await pageBundle(new URL('./support/encoder-kernels-entry.ts', import.meta.url), 'encoderKernelsBundle');
});

for (const dot of ['relaxed', 'relaxed16', 'simd'] as const) {
  test(`the int8 GEMM (${dot}) equals the reference linear layer in Chromium`, async ({ page }) => {
    await page.goto('/bridge.html');
    await page.addScriptTag({ content: bundle });
    const disagreement = await page.evaluate((d) => (window as unknown as { gemmDisagreement(d: string): unknown }).gemmDisagreement(d), dot);
    expect(disagreement).toBeNull();
  });
}
