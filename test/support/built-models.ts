/**
 * Model tests need the models `npm run models` builds. Outside CI a test file whose models are
 * absent is skipped with a warning (a quick `vitest run` on a checkout without them); in CI
 * (`CI=true`, set by .ci/run) their absence is a failure, so a broken model build can never pass as
 * a run of skipped tests.
 */
import { existsSync } from 'node:fs';

/** True when this is a CI run (`CI` set to anything but an empty string, `0` or `false`). */
export const inCI = (): boolean => !['', '0', 'false'].includes((process.env.CI ?? '').toLowerCase());

/**
 * Whether every path exists. When one is missing: throws in CI (the test file fails to load);
 * elsewhere warns and returns false, for `describe.skipIf(!…)` / `test.skip(!…)`.
 */
export function modelsBuilt(what: string, paths: readonly string[], hint = 'run `npm run models`'): boolean {
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length === 0) return true;
  const message = `${what} is not built (${missing[0]} missing): ${hint}`;
  if (inCI()) throw new Error(`MODEL TESTS CANNOT RUN IN CI: ${message}`);
  console.warn(`[models] SKIPPED outside CI: ${message}`);
  return false;
}
