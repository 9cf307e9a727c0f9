/**
 * Encoder speed through the stdio bridge (figures, not a test): `bridges/rcp-stdio.ts` drives the
 * app's worker in headless Chromium, served without cross-origin isolation (as the bridges serve
 * it: onnxruntime-web then gets one thread, our encoder workers every core). RCP `embed` of
 * ≈1,000-character sample passages in calls of 32 (passages/s), then one 10-word query repeated
 * (p50 / p90 of the round trip through stdin/stdout). The runtime is the one `info` names
 * (`_meta.models.embed.runtime`); the models config is dist/models/config.json's. Passages per
 * CPU-second divide the ingest by the CPU time of the bridge's process tree (Chromium included),
 * which a loaded machine moves far less than wall time.
 *
 * Usage: npm run build && node --import tsx scripts/measure-bridge-encoder.ts [--passages 96] [--queries 30] [--batch 32]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { LineBuffer } from '../src/transport/ndjson.ts';
import { treeCpuSeconds } from '../tools/lib/cpu-time.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-bridge-encoder.ts [--passages 96] [--queries 30] [--batch 32]',
  options: { passages: { type: 'string' }, queries: { type: 'string' }, batch: { type: 'string' } },
});
const PASSAGES = Number(values.passages ?? '96');
const QUERIES = Number(values.queries ?? '30');
/** Passages per `embed` call (the server's 30 s deadline holds per call: smaller on a loaded machine). */
const BATCH = Number(values.batch ?? '32');
const ROOT = join(import.meta.dirname, '..');
const QUERY = 'what did the president say about railroads and the economy';
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

function passages(n: number): string[] {
  const corpus = JSON.parse(readFileSync(join(ROOT, 'public', 'sample', 'corpus.json'), 'utf8')) as { documents: { text: string }[] };
  const out: string[] = [];
  for (const d of corpus.documents) for (let i = 0; i + 1000 <= d.text.length && out.length < n; i += 850) out.push(d.text.slice(i, i + 1000));
  return out;
}

interface Frame { id?: number; result?: Record<string, any>; error?: { code: number; message: string }; method?: string; params?: Record<string, any> }

const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map<number, (f: Frame) => void>();
const logs: string[] = [];
const lines = new LineBuffer();
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk: string) => {
  for (const line of lines.push(chunk)) {
    const f = JSON.parse(line) as Frame;
    if (f.method === 'notifications/log') logs.push(String(f.params?.message));
    if (typeof f.id === 'number') pending.get(f.id)?.(f), pending.delete(f.id);
  }
});
let nextId = 1;
const call = (method: string, params: unknown): Promise<Frame> =>
  new Promise((ok) => {
    const id = nextId++;
    pending.set(id, ok);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
const embed = async (inputs: string[], kind: string) => {
  const r = await call('embed', { inputs, kind, encoding: 'f32-base64' });
  if (r.error) throw new Error(JSON.stringify(r.error));
};

const texts = passages(PASSAGES);
console.log(`# stdio bridge: ${texts.length} passages of 1000 chars, ${QUERIES} queries; ${cpus().length} cores; load average ${load()} at start`);
const init = await call('initialize', { protocolVersion: 1, client: { name: 'measure-bridge-encoder', version: '1' }, capabilities: { log: {} } });
if (init.error) throw new Error(JSON.stringify(init.error));
// Wait until the model is ready (embed answers -32010 while it loads).
const t0 = Date.now();
for (;;) {
  const info = await call('info', {});
  if (info.result?._meta?.models?.embed?.state === 'ready') break;
  if (Date.now() - t0 > 300_000) throw new Error(`model not ready after 300 s: ${logs.join(' | ')}`);
  await new Promise((ok) => setTimeout(ok, 500));
}
const runtime = (await call('info', {})).result?._meta?.models?.embed?.runtime as string;
// Why this runtime (the model loader's log lines: a fallback says what failed).
for (const line of logs.filter((l) => /^model |kernels|encoder/.test(l))) console.log(`# ${line}`);
await embed(texts.slice(0, 8), 'document'); // warm
const s0 = performance.now();
const cpu0 = treeCpuSeconds(child.pid!); // the bridge and its Chromium
for (let i = 0; i < texts.length; i += BATCH) await embed(texts.slice(i, i + BATCH), 'document');
const ingest = texts.length / ((performance.now() - s0) / 1000);
const perCpuSecond = texts.length / (treeCpuSeconds(child.pid!) - cpu0);
const q: number[] = [];
for (let i = 0; i < QUERIES; i++) {
  const t = performance.now();
  await embed([QUERY], 'query');
  q.push(performance.now() - t);
}
q.sort((a, b) => a - b);
console.log('| runtime | ingest (passages/s) | passages per CPU-s (bridge + Chromium) | query p50 / p90 (ms, stdio round trip) | load average |\n|---|---|---|---|---|');
console.log(`| ${runtime} | ${ingest.toFixed(1)} | ${perCpuSecond.toFixed(1)} | ${q[Math.floor(q.length / 2)].toFixed(1)} / ${q[Math.min(q.length - 1, Math.floor(q.length * 0.9))].toFixed(1)} | ${load()} |`);
await call('shutdown', {});
child.stdin.end();
