import { expect, test } from '@playwright/test';
import { fuzzStdio } from '../tools/lib/fuzz-run.ts';

/** Frames per CI run (bounded: about 30 s); `npm run soak -- --frames N` runs it long. */
const FRAMES = Number(process.env.RCP_FUZZ_FRAMES ?? 1500);
const SEED = Number(process.env.RCP_FUZZ_SEED ?? 20240611);

test('seeded protocol fuzz over stdio: every request answered exactly once, with the right code, in schema-valid frames', async () => {
  test.setTimeout(240_000);
  const r = await fuzzStdio(SEED, FRAMES);
  console.log(
    `fuzz seed ${SEED}: ${r.frames} frames, ${r.requests} requests, ${r.answers} answers in ${r.seconds.toFixed(1)} s; ` +
      `missing ${r.missing.length}, doubled ${r.doubled.length}, unexpected ${r.unexpected.length}, wrong codes ${r.wrongCodes.length}, ` +
      `schema errors ${r.schemaErrors.length}`,
  );
  expect(r.exitCode).toBe(0);
  expect(r.missing).toEqual([]);
  expect(r.doubled).toEqual([]);
  expect(r.unexpected).toEqual([]);
  expect(r.wrongCodes).toEqual([]);
  expect(r.schemaErrors).toEqual([]);
});
