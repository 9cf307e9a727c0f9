import { expect, test } from '@playwright/test';
import { crashRun } from './support/crash-run.ts';

/** Kills per CI run (bounded); `npm run soak -- --kills N` runs it long. */
const KILLS = Number(process.env.RCP_CRASH_KILLS ?? 3);

test('SIGKILL of the whole bridge tree mid-ingest: every acknowledged document survives, no batch is partly visible', async () => {
  test.setTimeout(300_000);
  const r = await crashRun(KILLS);
  console.log(
    `crash: ${r.kills} kills survived; ${r.batchesAcknowledged} batches (${r.documentsAcknowledged} documents) acknowledged, ` +
      `${r.documentsLost} lost, ${r.partialBatches.length} partial batches, ${r.documentsFound} documents found`,
  );
  expect(r.documentsLost).toBe(0);
  expect(r.partialBatches).toEqual([]);
  expect(r.batchesAcknowledged).toBeGreaterThanOrEqual(KILLS);
});
