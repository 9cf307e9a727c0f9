/**
 * Runs the playground's quality harness (Learn RCP → Compare retrieval quality) end to end in
 * Debian's Chromium on a development collection — a fresh engine indexes and embeds it with the
 * configured model, the peers index it, every judged query runs — then runs `npm run eval` on the
 * same collection and grid and prints both, metric by metric, with whether they agree to 4 decimals.
 *
 *   npm run build && node --import tsx scripts/measure-quality-page.ts [--set cacm] [--grid sparse,dense,hybrid,minisearch,orama,orama-hybrid] [--no-cli]
 */
import { execSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { routeApp } from '../bridges/static-server.ts';
import { isPeer } from '../src/eval/engines.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-quality-page.ts [--set cacm] [--grid sparse,dense,hybrid,minisearch,orama,orama-hybrid] [--no-cli]',
  options: { set: { type: 'string' }, grid: { type: 'string' }, 'no-cli': { type: 'boolean' } },
});
const set = values.set ?? 'cacm';
const grid = (values.grid ?? 'sparse,dense,hybrid,minisearch,orama,orama-hybrid').split(',');
const root = join(import.meta.dirname, '..');
const evalDir = process.env.RCP_EVAL_DIR ?? join(root, '..', 'shared', 'eval');
const METRICS = ['ndcg10', 'recall50', 'mrr10'] as const;
type Means = Record<string, Record<(typeof METRICS)[number], number>>;

const uptime = () => execSync('uptime').toString().trim();

async function inPage(): Promise<{ means: Means; ms: number }> {
  const origin = 'http://localhost:5198';
  const profile = mkdtempSync(join(tmpdir(), 'rcp-quality-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'block', acceptDownloads: true });
  try {
    await routeApp(context, origin, join(root, 'dist'));
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
    await page.goto(`${origin}/index.html?panel=learn`);
    await page.locator('#status').filter({ hasText: 'Connected' }).waitFor({ timeout: 120_000 });
    await page.locator('#q-source').selectOption(set);
    await page.locator('#quality [role="status"]').first().filter({ hasText: `${set}:` }).waitFor({ timeout: 60_000 });
    for (const box of await page.locator('#quality input[id^="q-cfg-"], #quality input[id^="q-peer-"]').all()) await box.uncheck();
    for (const g of grid) await page.locator(isPeer(g) ? `#q-peer-${g}` : `#q-cfg-${g.replace(':', '-')}`).check();
    const t0 = Date.now();
    await page.locator('#quality button[type="submit"]').click();
    let told = 0;
    for (;;) {
      const status = (await page.locator('#quality [role="status"]').last().textContent()) ?? '';
      const error = (await page.locator('#quality [role="alert"]').textContent()) ?? '';
      if (error) throw new Error(error);
      if (status.startsWith('Done')) break;
      if (Date.now() - told > 30_000) (process.stderr.write(`${status}\n`), (told = Date.now()));
      await page.waitForTimeout(2000);
    }
    const ms = Date.now() - t0;
    const download = page.waitForEvent('download');
    await page.locator('#quality button', { hasText: 'Download the results' }).click();
    const saved = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as { runs: { engine: string; config: { label: string }; mean: Means[string] }[] };
    return { means: Object.fromEntries(saved.runs.map((r) => [r.engine === 'rcp-in-page' ? r.config.label : r.engine, r.mean])), ms };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

function cli(): Means {
  // The page's worker embeds on our WASM kernels with Chromium's relaxed SIMD: the CLI does the same
  // (Node 20 needs the flag), so both compute the same vectors, not merely close ones.
  const r = spawnSync('node', ['--experimental-wasm-relaxed-simd', '--import', 'tsx', 'scripts/eval.ts', join(evalDir, set), '--grid', grid.join(','), '--runtime', 'kernels', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) throw new Error(`npm run eval failed: ${r.stderr.slice(-2000)}`);
  const byConfig = JSON.parse(line) as Record<string, Record<string, Means[string]>>;
  return Object.fromEntries(Object.entries(byConfig).map(([label, sets]) => [label, sets[set]]));
}

console.log(`# quality harness in the page, ${set}, grid ${grid.join(',')}`);
console.log(`# ${uptime()}`);
const page = await inPage();
console.log(`# in the page: ${(page.ms / 1000).toFixed(0)} s wall (index, embed, every query, every engine)`);
const fromCli = values['no-cli'] ? undefined : cli();
console.log(`# ${uptime()}`);
console.log('| run | metric | page | npm run eval | same to 4 decimals |');
console.log('|---|---|---|---|---|');
let differ = 0;
for (const g of grid) {
  for (const m of METRICS) {
    const a = page.means[g]?.[m];
    const b = fromCli?.[g]?.[m];
    const same = a !== undefined && b !== undefined && a.toFixed(4) === b.toFixed(4);
    if (fromCli && !same) differ++;
    console.log(`| ${g} | ${m} | ${a?.toFixed(4) ?? '—'} | ${b?.toFixed(4) ?? '—'} | ${fromCli ? (same ? 'yes' : 'NO') : '—'} |`);
  }
}
process.exit(differ ? 1 : 0);
