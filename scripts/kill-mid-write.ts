/**
 * `node --import tsx scripts/kill-mid-write.ts [--trials N] [--idb leveldb|sqlite] [--seed S]`:
 * the short reproduction of issue 21 (acknowledged documents lost across crashes). Each trial
 * is three lives of a fresh bridge profile on the given IndexedDB backend:
 *   1. acknowledge 200 documents, send 2,000 more and SIGKILL the bridge's whole process tree
 *      while their commit is being written (as soon as the IndexedDB folder grows past a seeded
 *      point, 1–64 KiB into the write);
 *   2. start again, count, acknowledge 5 more documents, end cleanly;
 *   3. start again and count: every acknowledged document must be there.
 * On LevelDB it prints what each kill left in the log (tools/lib/leveldb-log.ts): a torn tail,
 * then, after life 2 wrote on after it, "checksum mismatch" mid-log, and life 3 finds the
 * database discarded and the bridge reports the loss. Exits 1 when any acknowledged document is
 * lost. Needs `npm run build`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killTree, spawnStdio, type StdioBridge } from '../tools/lib/bridge-process.ts';
import { readLevelDbLog } from '../tools/lib/leveldb-log.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { rng } from '../src/util/prng.ts';

const { values } = cliArgs({ usage: 'node --import tsx scripts/kill-mid-write.ts [--trials N] [--idb leveldb|sqlite] [--seed S]', options: { trials: { type: 'string' }, idb: { type: 'string' }, seed: { type: 'string' } } });
const trials = Number(values.trials ?? 8);
const idb = values.idb ?? 'leveldb';
const random = rng(Number(values.seed ?? 21));
const say = (line: string) => console.log(line);

async function start(profile: string): Promise<StdioBridge> {
  const b = spawnStdio(['--profile', profile, '--idb', idb]);
  b.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1 } });
  if (!(await b.response('init')).result) throw new Error(`initialize failed: ${b.stderr().slice(-500)}`);
  return b;
}

async function count(b: StdioBridge): Promise<number> {
  b.send({ jsonrpc: '2.0', id: 'count', method: 'x-inpage/documents', params: { limit: 1 } });
  return (await b.response('count')).result.total;
}

async function add(b: StdioBridge, id: string, prefix: string, n: number, repeat: number): Promise<void> {
  const documents = Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, text: `${prefix} document ${i} about whales and ships `.repeat(repeat) }));
  b.send({ jsonrpc: '2.0', id, method: 'index/add', params: { documents, _meta: { progressToken: id } } });
}

/** Bytes under the profile's IndexedDB folder (LevelDB log and tables, or SQLite and its WAL). */
function stored(profile: string): number {
  const walk = (dir: string): number =>
    existsSync(dir) ? readdirSync(dir).reduce((n, f) => n + (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : statSync(join(dir, f)).size), 0) : 0;
  return walk(join(profile, 'Default', 'IndexedDB'));
}

/** What the LevelDB logs of the profile hold, in one line. */
function logs(profile: string): string {
  const dir = join(profile, 'Default', 'IndexedDB', 'http_localhost_0.indexeddb.leveldb');
  if (!existsSync(dir)) return idb === 'leveldb' ? 'no LevelDB store' : 'SQLite (no LevelDB log)';
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => {
      const r = readLevelDbLog(readFileSync(join(dir, f)));
      return `${f} ${r.bytes} B: ${r.corrupt.length ? `CORRUPT (${r.corrupt[0]})` : r.tornTail ? `torn tail (${r.tornTail})` : 'clean'}`;
    })
    .join('; ');
}

let lostTrials = 0;
let tornKills = 0;
for (let t = 1; t <= trials; t++) {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-kill-mid-write-'));
  try {
    const one = await start(profile);
    add(one, 'acked', 'acked', 200, 20);
    if (!(await one.response('acked')).result) throw new Error('the first batch failed');
    add(one, 'big', 'big', 2000, 60);
    await one.waitFor((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'big' && m.params.progress === 1);
    const before = stored(profile);
    const into = 1024 + Math.floor(random() * 63 * 1024);
    const t0 = Date.now();
    while (stored(profile) < before + into && Date.now() - t0 < 30_000); // spin: the write takes milliseconds
    killTree(one.child.pid!);
    await one.exited;
    const bigAcked = one.lines.some((l) => l.includes('"id":"big","result"'));
    const afterKill = logs(profile);
    if (afterKill.includes('torn tail')) tornKills++;

    const two = await start(profile);
    const seen2 = await count(two);
    add(two, 'small', 'small', 5, 1);
    if (!(await two.response('small')).result) throw new Error('the small batch failed');
    await two.end();
    const afterTwo = logs(profile);

    const three = await start(profile);
    const seen3 = await count(three);
    const reported = /index lost[^\n]*/.exec(three.stderr())?.[0];
    await three.end();
    const acknowledged = 200 + 5 + (bigAcked ? 2000 : 0);
    const lost = seen3 < acknowledged;
    if (lost) lostTrials++;
    say(`trial ${t}: killed ${into} bytes into the write; after the kill ${afterKill}; life 2 saw ${seen2}; after life 2 ${afterTwo}; life 3 saw ${seen3} of ${acknowledged} acknowledged${lost ? ' — LOST' : ''}${reported ? `; the bridge said: ${reported.slice(0, 140)}…` : ''}`);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
say(`${idb}: ${trials} trials, ${tornKills} kills left a torn log tail, ${lostTrials} trials lost acknowledged documents`);
process.exit(lostTrials > 0 ? 1 : 0);
