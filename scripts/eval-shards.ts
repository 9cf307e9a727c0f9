/**
 * A sharded collection against one index, through the real bridges (a sibling of scripts/eval.ts):
 *
 *   npm run eval:shards -- [DIR] [--shards 2,4] [--fusions rrf,convex,score,global-bm25,auto] [--k 100] [--chunk] [--port 8331] [--json]
 *
 * DIR (default ../shared/eval/cacm, BEIR format) is indexed once into one HTTP bridge (its own
 * profile), and, for each N, split by a hash of the document id over N HTTP bridges (a profile
 * each) that one aggregator bridge federates (`--federate` for each, `--federate-default`; its
 * own index stays empty). Every judged query is asked of the one index and of the aggregator
 * (sparse retrieval, documents as units, k = 100 as `npm run eval`, or --k; documents indexed whole, or chunked by
 * the engine with --chunk; the bridges run with --no-models), once per
 * fusion method, and then with the best one while one shard answers 200 ms late (a delaying
 * proxy in front of it) and while one shard is down (its address refuses connections).
 * Reported: nDCG@10 (src/eval/metrics.ts, as shared/eval/bm25_eval.py) and client-side
 * latency p50/p95 per query. Ports from --port on (N + 3 of them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RcpClient } from '../src/client/rcp-client.ts';
import { judgedQueries, type BeirCollection } from '../src/eval/beir.ts';
import { loadCollection } from '../src/eval/engines.ts';
import { rankedDocuments } from '../src/eval/harness.ts';
import { ndcgAt } from '../src/eval/metrics.ts';
import type { RetrieveResult } from '../src/protocol/types.ts';
import { HttpTransport } from '../src/transport/http-transport.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { startHttp } from '../tools/lib/bridge-process.ts';
import { readCollection } from './lib/beir-files.ts';

const { values: flags, positionals } = cliArgs({
  usage: 'npm run eval:shards -- [DIR] [--shards 2,4] [--fusions rrf,convex,score,global-bm25,auto] [--k 100] [--chunk] [--port 8331] [--json]',
  options: {
    shards: { type: 'string', default: '2,4' },
    fusions: { type: 'string', default: 'rrf,convex,score,global-bm25,auto' },
    k: { type: 'string', default: '100' },
    chunk: { type: 'boolean' },
    port: { type: 'string', default: '8331' },
    json: { type: 'boolean' },
  },
  positionals: true,
});
const dir = positionals[0] ?? join(import.meta.dirname, '..', '..', 'shared', 'eval', 'cacm');
const shardCounts = flags.shards.split(',').map(Number);
const fusions = flags.fusions.split(',');
const PORT = Number(flags.port);
const K = Number(flags.k);
if (!Number.isInteger(K) || K < 10) throw new Error(`--k must be an integer ≥ 10 (nDCG@10 needs ten hits), got ${flags.k}`);
const asJson = flags.json === true;
const load = { chunk: flags.chunk === true };
const log = (line: string) => process.stderr.write(`${line}\n`);
const url = (port: number) => `http://127.0.0.1:${port}/rcp`;

type Bridge = Awaited<ReturnType<typeof startHttp>>;
const profiles: string[] = [];
const running = new Set<Bridge>();

async function bridge(port: number, args: string[] = []): Promise<Bridge> {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-shard-'));
  profiles.push(profile);
  const b = await startHttp(port, ['--profile', profile, '--no-models', ...args]);
  running.add(b);
  return b;
}

async function stop(b: Bridge): Promise<void> {
  running.delete(b);
  await b.stop();
}

async function client(port: number): Promise<RcpClient> {
  const c = new RcpClient(new HttpTransport(url(port)), { clientInfo: { name: 'eval-shards', version: '1' } });
  await c.connect({ timeoutMs: 60_000 });
  return c;
}

/** FNV-1a of the id: which shard a document lives on. */
function shardOf(id: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % n;
}

interface Run {
  setup: string;
  ndcg10: number;
  p50: number;
  p95: number;
  /** Queries whose answer named a degraded engine. */
  degraded: number;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};

async function measure(setup: string, c: RcpClient, coll: BeirCollection): Promise<Run> {
  const queries = judgedQueries(coll);
  await c.request('retrieve', { query: queries[0].text, k: K, mode: 'sparse', unit: 'document' }, { timeoutMs: 60_000 }); // connects the engines
  const ms: number[] = [];
  let ndcg = 0, degraded = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const r = (await c.request('retrieve', { query: q.text, k: K, mode: 'sparse', unit: 'document', includeText: false }, { timeoutMs: 60_000 })) as RetrieveResult & { _meta?: { degraded?: string[] } };
    ms.push(performance.now() - t0);
    if (r._meta?.degraded?.length) degraded++;
    ndcg += ndcgAt(10, rankedDocuments(r), coll.qrels.get(q.id)!);
  }
  const run = { setup, ndcg10: ndcg / queries.length, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), degraded };
  log(`${setup}: nDCG@10 ${run.ndcg10.toFixed(4)}, p50 ${run.p50.toFixed(1)} ms, p95 ${run.p95.toFixed(1)} ms${degraded ? `, ${degraded} degraded answers` : ''}`);
  return run;
}

/** A proxy to `target` that holds every request `delayMs` before passing it on. */
async function slowProxy(port: number, target: number, delayMs: number): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () =>
      setTimeout(() => {
        const fwd = httpRequest({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        fwd.on('error', () => res.writeHead(502).end());
        fwd.end(Buffer.concat(chunks));
      }, delayMs),
    );
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return server;
}

async function main(): Promise<void> {
  const coll = readCollection(dir);
  log(`${coll.name}: ${coll.corpus.length} documents, ${judgedQueries(coll).length} judged queries`);
  const runs: Run[] = [];

  const one = await bridge(PORT);
  const oneClient = await client(PORT);
  await loadCollection(oneClient, coll, load);
  runs.push(await measure('one index', oneClient, coll));
  oneClient.close();
  await stop(one);

  for (const n of shardCounts) {
    const ports = Array.from({ length: n }, (_, i) => PORT + 1 + i);
    const shards = await Promise.all(ports.map((p) => bridge(p)));
    for (let i = 0; i < n; i++) {
      const part = { ...coll, corpus: coll.corpus.filter((d) => shardOf(d.id, n) === i) };
      const c = await client(ports[i]);
      await loadCollection(c, part, load);
      c.close();
      log(`shard ${i + 1}/${n}: ${part.corpus.length} documents`);
    }
    const aggPort = PORT + 1 + n;
    const federated = async (setup: string, fusion: string, urls: string[]) => {
      const agg = await bridge(aggPort, ['--federate-default', '--federate-fusion', fusion, '--identity', `shards-${n}`, ...urls.flatMap((u) => ['--federate', u])]);
      const c = await client(aggPort);
      const run = await measure(setup, c, coll);
      c.close();
      await stop(agg);
      return run;
    };
    const urls = ports.map(url);
    const byFusion: Run[] = [];
    for (const f of fusions) byFusion.push(await federated(`${n} shards, ${f}`, f, urls));
    runs.push(...byFusion);
    const best = fusions[byFusion.indexOf(byFusion.reduce((a, b) => (b.ndcg10 > a.ndcg10 ? b : a)))];
    const proxyPort = aggPort + 1;
    const proxy = await slowProxy(proxyPort, ports[0], 200);
    runs.push(await federated(`${n} shards, ${best}, shard 1 +200 ms`, best, [url(proxyPort), ...urls.slice(1)]));
    proxy.close();
    // Down: shard 1's address refuses connections (nothing listens on the proxy's port now).
    runs.push(await federated(`${n} shards, ${best}, shard 1 down`, best, [url(proxyPort), ...urls.slice(1)]));
    await Promise.all(shards.map(stop));
  }

  if (asJson) process.stdout.write(`${JSON.stringify({ collection: coll.name, documents: coll.corpus.length, queries: judgedQueries(coll).length, runs }, null, 2)}\n`);
  else {
    process.stdout.write(`\n${coll.name} (${coll.corpus.length} documents, ${judgedQueries(coll).length} judged queries), sparse, k = ${K}${load.chunk ? ', chunked' : ''}\n\n| setup | nDCG@10 | Δ one index | p50 ms | p95 ms |\n|---|---|---|---|---|\n`);
    for (const r of runs) process.stdout.write(`| ${r.setup} | ${r.ndcg10.toFixed(4)} | ${(r.ndcg10 - runs[0].ndcg10).toFixed(4)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |\n`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void Promise.all([...running].map((b) => b.stop())).then(() => process.exit(130));
  });
}
try {
  await main();
} finally {
  await Promise.all([...running].map((b) => b.stop()));
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
}
