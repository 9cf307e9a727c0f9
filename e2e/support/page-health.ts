import type { Page } from '@playwright/test';

/** Collects console errors (CSP violations included) and uncaught page errors; a test expects none. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}
