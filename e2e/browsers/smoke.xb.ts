/** The drivers' smoke test: the built app opens and its engine connects in Firefox ESR and in WebKitGTK. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STATIC_MODEL } from '../support/playground.ts';
import { BROWSERS, launch } from './driver.ts';
import { startApp, type AppServer } from './server.ts';

let app: AppServer;
before(async () => {
  app = await startApp();
  app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
});
after(() => app.close());

for (const name of BROWSERS) {
  describe(name, () => {
    test('the built app opens and connects', { timeout: 240_000 }, async () => {
      const browser = await launch(name);
      try {
        await browser.tab.goto(`${app.origin}/index.html`);
        const status = await browser.tab.waitFor(() => { const t = document.querySelector('#status')?.textContent ?? ''; return /Connected/.test(t) ? t : null; }, { timeout: 120_000, what: '#status Connected' });
        assert.match(status, /Connected/);
        assert.equal(await browser.tab.evaluate((a: number, b: number) => a + b, 2, 3), 5);
        console.log(`${browser.version}: ${status}`);
      } finally {
        await browser.close();
      }
    });
  });
}
