/**
 * `npm run soak -- [--frames N] [--seed S] [--kills K]`: the long runs of the bridge fuzzer and
 * crash test that CI runs bounded (e2e/bridge-fuzz.spec.ts, e2e/bridge-crash.spec.ts). Prints the
 * figures issue 10 asks for; exits 1 when any answer is missing, doubled, mistyped or schema-invalid,
 * or any acknowledged document is lost.
 */
import { crashRun } from '../e2e/support/crash-run.ts';
import { fuzzStdio } from '../e2e/support/fuzz-run.ts';
import { parseArgs } from './lib/args.ts';

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const frames = Number(values.get('frames') ?? 20_000);
  const seed = Number(values.get('seed') ?? Date.now() % 2 ** 31);
  const kills = Number(values.get('kills') ?? 0);
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
    say(`crash test: ${kills} SIGKILLs mid-ingest`);
    const r = await crashRun(kills, 150, say);
    failed ||= r.documentsLost > 0 || r.partialBatches.length > 0;
    console.log(`kills survived: ${r.kills}; documents acknowledged: ${r.documentsAcknowledged}; documents lost: ${r.documentsLost}; partial batches: ${r.partialBatches.length}`);
  }
  process.exit(failed ? 1 : 0);
}

void main();
