import { expect, test } from '@playwright/test';
import { crashRun } from '../tools/lib/crash-run.ts';

/** Kills per CI run (bounded); `npm run soak -- --kills N [--load]` runs it long. */
const KILLS = Number(process.env.RCP_CRASH_KILLS ?? 6);

test('kills of the bridge tree and of the tab mid-ingest, under load: every life sees every acknowledged document, no batch is partly visible', async () => {
  test.setTimeout(600_000);
  const r = await crashRun({ kills: KILLS, seed: 21, targets: 'mixed', load: true });
  console.log(
    `crash: ${r.kills} kills survived (${r.perLife.filter((l) => l.kill?.target === 'tab').length} of the tab), ${r.lives} lives checked; ` +
      `${r.batchesAcknowledged} batches (${r.documentsAcknowledged} documents) acknowledged, ${r.documentsLost} lost, ` +
      `${r.partialBatches.length} partial batches, ${r.documentsFound} documents found; load: ${r.load?.adds} adds, ${r.load?.retrieves} retrieves`,
  );
  expect(r.lostLives).toEqual([]);
  expect(r.documentsLost).toBe(0);
  expect(r.partialBatches).toEqual([]);
  expect(r.reportedLosses).toBe(0); // nothing was lost, so nothing may be reported as lost
  expect(r.batchesAcknowledged).toBeGreaterThanOrEqual(KILLS);
  expect(new Set(r.perLife.flatMap((l) => (l.kill ? [l.kill.target] : [])))).toEqual(new Set(['bridge', 'tab']));
  expect(r.load?.failures).toEqual([]);
});
