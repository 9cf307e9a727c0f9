/**
 * The quality harness in the page (Learn RCP → Compare retrieval quality) against `npm run eval`:
 * the same collection (TIME), model (the static one, synchronous) and configurations give the
 * same nDCG@10, Recall@50 and MRR@10 to 4 decimals for our engine and for the peers behind RCP.
 * A malformed BEIR file is refused with the file and line named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runScript } from './support/node-script.ts';
import { openStaticPlayground, showArea, STATIC_MODEL } from './support/playground.ts';

const root = join(import.meta.dirname, '..');
const EVAL = process.env.RCP_EVAL_DIR ?? join(root, '..', 'shared', 'eval');
const CONFIGS = ['sparse', 'dense', 'hybrid'];
const PEERS = ['minisearch', 'orama', 'orama-hybrid'];

type Means = Record<string, { ndcg10: number; recall50: number; mrr10: number }>;

/** `npm run eval --json` for TIME over the same grid, keyed like the page's runs. */
async function cli(): Promise<Means> {
  const { code, stdout, stderr } = await runScript(['scripts/eval.ts', join(EVAL, 'time'), '--grid', [...CONFIGS, ...PEERS].join(','), '--model', STATIC_MODEL.embedder, '--json', '--no-cache']);
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !line) throw new Error(`eval failed (${code}): ${stderr.slice(-2000)}`);
  const byConfig = JSON.parse(line) as Record<string, { time: Means[string] }>;
  return Object.fromEntries(Object.entries(byConfig).map(([label, sets]) => [label, sets.time]));
}

test('TIME in the page matches npm run eval to 4 decimals, for our engine and the peers', async ({ page, context }) => {
  test.setTimeout(600_000);
  const fromCli = cli();
  const { outside, errors } = await openStaticPlayground(page, context);
  await showArea(page, 'learn');
  await page.locator('#q-source').selectOption('time');
  await expect(page.locator('#quality [role="status"]').first()).toContainText('time: 423 documents, 83 judged queries');
  for (const c of ['sparse', 'dense', 'hybrid']) await page.locator(`#q-cfg-${c}`).check();
  for (const p of PEERS) await page.locator(`#q-peer-${p}`).check();
  await page.locator('#quality button[type="submit"]').click();
  await expect(page.locator('#quality [role="status"]').last()).toContainText('Done: 6 runs', { timeout: 540_000 });
  await expect(page.locator('#quality [role="alert"]')).toBeEmpty();

  const download = page.waitForEvent('download');
  await page.locator('#quality button', { hasText: 'Download the results' }).click();
  const saved = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as { runs: { engine: string; config: { label: string }; mean: Means[string]; failed: number }[] };
  const inPage: Means = Object.fromEntries(saved.runs.map((r) => [r.engine === 'rcp-in-page' ? r.config.label : r.engine, r.mean]));
  expect(saved.runs.every((r) => r.failed === 0)).toBe(true);
  const cliMeans = await fromCli;
  for (const label of [...CONFIGS, ...PEERS]) {
    for (const m of ['ndcg10', 'recall50', 'mrr10'] as const) expect(inPage[label][m].toFixed(4), `${label} ${m}`).toBe(cliMeans[label][m].toFixed(4));
  }
  // Our hybrid beats every peer here, and the table says so.
  expect(inPage.hybrid.ndcg10).toBeGreaterThan(Math.max(...PEERS.map((p) => inPage[p].ndcg10)));

  // Per query: two runs side by side, each query with both top 10s.
  await page.locator('#q-a').selectOption({ label: 'MiniSearch (defaults)' });
  await page.locator('#q-b').selectOption({ label: 'rcp-in-page hybrid' });
  await expect(page.locator('.q-diffs p').first()).toContainText('is better on');
  const first = page.locator('.q-diff-list li').first();
  await first.locator('summary').click();
  await expect(first.locator('ol')).toHaveCount(2);
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});

test('a malformed BEIR file is refused with its file and line', async ({ page, context }) => {
  await openStaticPlayground(page, context);
  await showArea(page, 'learn');
  await page.locator('#q-source').selectOption('files');
  await page.locator('#q-files').setInputFiles([
    { name: 'corpus.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"_id":"a","text":"fine"}\n{"_id":"b","text": oops}\n') },
    { name: 'queries.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"_id":"q","text":"fine"}\n') },
    { name: 'test.tsv', mimeType: 'text/tab-separated-values', buffer: Buffer.from('query-id\tcorpus-id\tscore\nq\ta\t1\n') },
  ]);
  await expect(page.locator('#quality [role="alert"]')).toContainText('corpus.jsonl line 2: not JSON');
  await page.locator('#q-files').setInputFiles([{ name: 'queries.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"_id":"q","text":"fine"}\n') }]);
  await expect(page.locator('#quality [role="alert"]')).toContainText('lacks corpus.jsonl, a qrels .tsv file');
});
