/**
 * `npm run soak -- [--frames N] [--seed S] [--kills K] [--targets bridge|tab|mixed] [--load]
 * [--profile DIR] [--idb sqlite|leveldb]`: the long runs of the bridge fuzzer and crash test that CI runs bounded
 * (e2e/bridge-fuzz.spec.ts, e2e/bridge-crash.spec.ts). `--load` runs a load generator (another
 * bridge ingesting and searching) during the crash test; `--profile` keeps the crash test's
 * profile (reused by a later run); `--idb` picks a new profile's IndexedDB backend (leveldb shows
 * what Chromium's default does under kills). Prints the figures issues 10 and 21 ask for, with every life
 * that started with acknowledged documents missing named; exits 1 when any answer is missing,
 * doubled, mistyped or schema-invalid, or any acknowledged document is lost.
 */
import { crashRun } from '../tools/lib/crash-run.ts';
import { fuzzStdio } from '../tools/lib/fuzz-run.ts';
import { cliArgs } from '../tools/lib/args.ts';

async function main(): Promise<void> {
  const { values } = cliArgs({
    usage: 'npm run soak -- [--frames N] [--seed S] [--kills K] [--targets bridge|tab|mixed] [--load] [--profile DIR] [--idb sqlite|leveldb]',
    options: { frames: { type: 'string' }, seed: { type: 'string' }, kills: { type: 'string' }, targets: { type: 'string' }, load: { type: 'boolean' }, profile: { type: 'string' }, idb: { type: 'string' } },
  });
  const frames = Number(values.frames ?? 20_000);
  const seed = Number(values.seed ?? Date.now() % 2 ** 31);
  const kills = Number(values.kills ?? 0);
  const say = (line: string) => process.stderr.write(`[soak] ${line}\n`);
  let failed = false;
  if (frames > 0) {
    say(`fuzzing ${frames} frames, seed ${seed}`);
    const r = await fuzzStdio(seed, frames, say);
    const bad = r.missing.length + r.doubled.length + r.unexpected.length + r.wrongCodes.length + r.schemaErrors.length;
    failed ||= bad > 0 || r.exitCode !== 0;
    console.log(`frames fuzzed: ${r.frames} (seed ${seed}, ${r.requests} requests, ${r.answers} answers, ${r.seconds.toFixed(0)} s)`);
    console.log(`answers missing: ${r.missing.length}; doubled: ${r.doubled.length}; unexpected: ${r.unexpected.length}; wrong codes: ${r.wrongCodes.length}; schema-invalid frames: ${r.schemaErrors.length}`);
    for (const line of [...r.missing, ...r.doubled, ...r.unexpected, ...r.wrongCodes, ...r.schemaErrors].slice(0, 30)) console.log(`  ${line}`);
  }
  if (kills > 0) {
    const targets = (values.targets ?? 'mixed') as 'bridge' | 'tab' | 'mixed';
    const load = values.load === true;
    say(`crash test: ${kills} kills (${targets}) mid-ingest, seed ${seed}${load ? ', with a load generator' : ''}`);
    const t0 = performance.now();
    const idb = values.idb as 'sqlite' | 'leveldb' | undefined;
    const r = await crashRun({ kills, seed, targets, load, idb, profile: values.profile, log: say });
    failed ||= r.documentsLost > 0 || r.partialBatches.length > 0 || r.lostLives.length > 0 || (r.load?.failures.length ?? 0) > 0;
    const byTarget = (t: string) => r.perLife.filter((l) => l.kill?.target === t).length;
    console.log(`kills survived: ${r.kills} (bridge ${byTarget('bridge')}, tab ${byTarget('tab')}; seed ${r.seed}, ${((performance.now() - t0) / 1000).toFixed(0)} s); lives checked: ${r.lives}`);
    console.log(`documents acknowledged: ${r.documentsAcknowledged}; documents lost: ${r.documentsLost}; partial batches: ${r.partialBatches.length}; lives that started with a loss: ${r.lostLives.length}; losses reported by the bridge: ${r.reportedLosses}`);
    for (const line of [...r.lostLives, ...r.partialBatches].slice(0, 30)) console.log(`  ${line}`);
    if (r.load) console.log(`load generator: ${r.load.adds} adds, ${r.load.retrieves} retrieves, ${r.load.failures.length} failures${r.load.failures.length ? `: ${r.load.failures.slice(0, 3).join('; ')}` : ''}`);
  }
  process.exit(failed ? 1 : 0);
}

void main();
