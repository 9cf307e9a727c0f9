import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from './bridges/browser-host.ts';

/** Port of the preview server; E2E_PORT lets several checkouts run e2e side by side. */
const PORT = Number(process.env.E2E_PORT ?? 4173);

/** e2e in real Chromium (Debian's /usr/bin/chromium) against the built app served by `vite preview`. */
export default defineConfig({
  testDir: 'e2e',
  // The README screenshot generator runs only on request.
  testIgnore: process.env.RCP_SCREENSHOT ? [] : ['**/playground-screenshot.spec.ts'],
  timeout: 120_000,
  workers: 1,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    screenshot: 'only-on-failure',
    trace: 'off',
  },
  webServer: {
    command: `npx vite preview --host localhost --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}/index.html`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
