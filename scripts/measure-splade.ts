/**
 * SPLADE-tiny speed and sparsity on onnxruntime-node (figures, not a test): ≈1,000-character
 * passages (the engine's chunk size, from the sample corpus) encoded as `embed/sparse` kind
 * `document` would encode them, and one 10-word query at a time. Prints wall-clock passages/s and
 * CPU milliseconds per passage (process.cpuUsage, less sensitive to a shared machine's load), the
 * query p50/p90, and the mean number of nonzero terms, with the load average before and after.
 *
 *   npm run models && npm run sample && node --import tsx scripts/measure-splade.ts [--passages 96] [--queries 30]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SpladeLane } from './lib/splade-lane.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'node --import tsx scripts/measure-splade.ts [--passages 96] [--queries 30]',
  options: { passages: { type: 'string' }, queries: { type: 'string' } },
});
const PASSAGES = Number(values.passages ?? '96');
const QUERIES = Number(values.queries ?? '30');
const ROOT = join(import.meta.dirname, '..');
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const corpus = JSON.parse(readFileSync(join(ROOT, 'public', 'sample', 'corpus.json'), 'utf8')) as { documents: { text: string }[] };
const passages: string[] = [];
for (const d of corpus.documents) for (let i = 0; i + 1000 <= d.text.length && passages.length < PASSAGES; i += 850) passages.push(d.text.slice(i, i + 1000));
const QUERY = 'what did the president say about railroads and the economy';

console.log(`load average before: ${load()}`);
const encoder = await SpladeLane.encoder(join(ROOT, 'public', 'models') + '/');
await encoder.encode(passages.slice(0, 4), 'document'); // warm
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const vectors = await encoder.encode(passages, 'document');
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const ms: number[] = [];
let queryTerms = 0;
for (let i = 0; i < QUERIES; i++) {
  const t = performance.now();
  const [q] = await encoder.encode([QUERY], 'query');
  ms.push(performance.now() - t);
  queryTerms = q.indices.length;
}
ms.sort((a, b) => a - b);
const terms = vectors.reduce((s, v) => s + v.indices.length, 0) / vectors.length;
console.log(`${encoder.identity} on onnxruntime-node (${encoder.device})`);
console.log(`ingest: ${passages.length} passages of 1,000 characters in ${wall.toFixed(1)} s = ${(passages.length / wall).toFixed(1)} passages/s wall; CPU ${((cpu.user + cpu.system) / 1000 / passages.length).toFixed(0)} ms per passage`);
console.log(`query (10 words): p50 ${ms[Math.floor(ms.length / 2)].toFixed(1)} ms, p90 ${ms[Math.floor(ms.length * 0.9)].toFixed(1)} ms`);
console.log(`nonzero terms: ${terms.toFixed(0)} per passage, ${queryTerms} for the query (vocabulary 30,522)`);
console.log(`load average after: ${load()}`);
await encoder.dispose();
