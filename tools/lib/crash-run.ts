/**
 * Crash test: many lives of ONE browser profile. Each life starts a stdio bridge on the profile,
 * first checks what it sees (every batch acknowledged in earlier lives must be there, whole; no
 * batch may be partly visible), acknowledges a few batches, then sends one more and is killed at
 * a seeded moment: at the add's first or last progress frame, or after a random delay (during
 * background re-embedding of the batches just acknowledged, a merge in the add's commit, or
 * after its answer). The kill is either SIGKILL of the bridge's whole process tree (Node,
 * Chromium and every child) or of the tab alone (its renderer, with the worker in it) before the
 * tree. Optionally a load generator (a second bridge, own profile) keeps the machine busy.
 * The report counts every life and names each life that started with acknowledged data missing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rng } from '../../src/util/prng.ts';
import { killTree, spawnStdio, treeOf, type StdioBridge } from './bridge-process.ts';
import { startLoad, type LoadReport } from './load-run.ts';

export type KillTarget = 'bridge' | 'tab';
export type KillMoment = 'first-progress' | 'last-progress' | 'delay';

export interface CrashOptions {
  kills: number;
  docsPerBatch?: number;
  /** Seeds the kill moments and targets (default 1). */
  seed?: number;
  /** What is killed: the bridge's tree, the tab (then the tree), or a seeded mix (default 'bridge'). */
  targets?: KillTarget | 'mixed';
  /** Run a load generator alongside: another bridge ingesting and searching on its own profile. */
  load?: boolean;
  /** Use (and keep) this profile instead of a temporary one. */
  profile?: string;
  /** The IndexedDB backend of a new profile (bridges/profile-storage.ts; default the bridges' own, SQLite). */
  idb?: 'sqlite' | 'leveldb';
  log?: (line: string) => void;
}

/** What one life saw when it started, and how it ended. */
export interface LifeReport {
  life: number;
  /** Documents the life listed at start, and how many had been acknowledged before it. */
  sawDocuments: number;
  acknowledgedBefore: number;
  /** Acknowledged batches missing (wholly or partly) at the start of this life. */
  missingBatches: string[];
  /** What the bridge said about the index on stderr (a loss report, or nothing). */
  reported?: string;
  kill?: { target: KillTarget; moment: KillMoment; delayMs?: number; processes: number };
}

export interface CrashReport {
  kills: number;
  lives: number;
  seed: number;
  batchesAcknowledged: number;
  documentsAcknowledged: number;
  documentsLost: number;
  partialBatches: string[];
  documentsFound: number;
  /** One line per life that started with acknowledged documents missing. */
  lostLives: string[];
  /** Lives whose bridge reported a lost index on stderr. */
  reportedLosses: number;
  perLife: LifeReport[];
  load?: LoadReport;
}

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1 } };
/** The bridge's stderr line that reports an index lost since the last life (bridges/index-loss.ts). */
const LOSS_LINE = /index lost[^\n]*/i;

async function start(profile: string, idb: string | undefined): Promise<StdioBridge> {
  const b = spawnStdio(['--profile', profile, ...(idb ? ['--idb', idb] : [])]);
  b.send(INIT);
  const r = await b.response('init');
  if (!r.result) throw new Error(`initialize failed: ${JSON.stringify(r)}`);
  return b;
}

/** Every document id the bridge lists, page by page. */
async function listAll(b: StdioBridge, tag: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const id = `${tag}-list${offset}`;
    b.send({ jsonrpc: '2.0', id, method: 'x-inpage/documents', params: { offset, limit: 1000 } });
    const r = await b.response(id);
    if (!r.result) throw new Error(`listing failed: ${JSON.stringify(r.error)}`);
    for (const d of r.result.documents) found.add(d.id);
    if (r.result.documents.length < 1000) break;
  }
  return found;
}

/** The renderer processes of the bridge's Chromium (the tab and its worker live in one). */
function renderers(pid: number): number[] {
  return treeOf(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=renderer');
    } catch {
      return false;
    }
  });
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export async function crashRun(opts: CrashOptions): Promise<CrashReport> {
  const { kills, docsPerBatch = 150, seed = 1, targets = 'bridge', log = () => {} } = opts;
  const random = rng(seed);
  const profile = opts.profile ?? mkdtempSync(join(tmpdir(), 'rcp-crash-'));
  const sent = new Map<string, string[]>();
  const acked = new Set<string>();
  const perLife: LifeReport[] = [];
  const load = opts.load ? await startLoad(log) : undefined;
  const missingIn = (found: Set<string>) => [...acked].filter((batch) => sent.get(batch)!.some((id) => !found.has(id)));
  const acknowledgedDocs = () => [...acked].reduce((n, batch) => n + sent.get(batch)!.length, 0);
  try {
    for (let round = 0; round < kills; round++) {
      const b = await start(profile, opts.idb);
      const seen = await listAll(b, `life${round}`);
      const life: LifeReport = { life: round, sawDocuments: seen.size, acknowledgedBefore: acknowledgedDocs(), missingBatches: missingIn(seen) };
      perLife.push(life);
      if (life.missingBatches.length > 0) log(`life ${round}: ${life.missingBatches.length} acknowledged batches missing at start (saw ${seen.size} of ${life.acknowledgedBefore})`);
      // A few batches acknowledged in this life, then one more that the kill interrupts; the first
      // life is killed during the very first write of the new profile.
      const before = round === 0 ? 0 : 1 + (round % 3);
      const target: KillTarget = targets === 'mixed' ? (random() < 0.5 ? 'bridge' : 'tab') : targets;
      const moment: KillMoment = (['first-progress', 'last-progress', 'delay'] as const)[Math.floor(random() * 3)];
      const delayMs = Math.floor(random() * 3000);
      for (let i = 0; i <= before; i++) {
        const batch = `r${round}b${i}`;
        const ids = Array.from({ length: docsPerBatch }, (_, d) => `${batch}d${d}`);
        sent.set(batch, ids);
        const docs = ids.map((id, d) => ({ id, text: `crash test ${batch} document ${d} about whales and ships`, meta: { batch } }));
        b.send({ jsonrpc: '2.0', id: batch, method: 'index/add', params: { documents: docs, _meta: { progressToken: batch } } });
        if (i < before) {
          const r = await b.response(batch);
          if (r.result) acked.add(batch);
          else throw new Error(`life ${round}: ${batch} failed: ${JSON.stringify(r.error)}`);
          continue;
        }
        const progress = (m: { method?: string; params?: { progressToken?: string; progress?: number } }) =>
          m.method === 'notifications/progress' && m.params?.progressToken === batch;
        if (moment === 'first-progress') await b.waitFor(progress);
        else if (moment === 'last-progress') await b.waitFor((m) => progress(m) && m.params.progress === 1).catch(() => undefined);
        else await sleep(delayMs);
        let processes = 0;
        if (target === 'tab') {
          // The tab dies alone (as when the OS kills a renderer): the browser and its storage live on a moment.
          const tabs = renderers(b.child.pid!);
          for (const p of tabs) process.kill(p, 'SIGKILL');
          processes += tabs.length;
          await sleep(300);
        }
        processes += killTree(b.child.pid!).length;
        await b.exited;
        // The answer may have been written just before the kill: then it was acknowledged.
        if (b.lines.some((l) => l.includes(`"id":"${batch}","result"`))) acked.add(batch);
        life.kill = { target, moment, ...(moment === 'delay' ? { delayMs } : {}), processes };
        life.reported = LOSS_LINE.exec(b.stderr())?.[0];
        log(`kill ${round + 1}/${kills} (${target}, ${moment}${moment === 'delay' ? ` ${delayMs} ms` : ''}): ${processes} processes, ${acked.size} batches acknowledged so far`);
      }
    }
    const b = await start(profile, opts.idb);
    const found = await listAll(b, 'final');
    await b.end();
    const last: LifeReport = { life: kills, sawDocuments: found.size, acknowledgedBefore: acknowledgedDocs(), missingBatches: missingIn(found), reported: LOSS_LINE.exec(b.stderr())?.[0] };
    perLife.push(last);
    let lost = 0;
    const partial: string[] = [];
    for (const [batch, ids] of sent) {
      const present = ids.filter((id) => found.has(id)).length;
      if (acked.has(batch)) lost += ids.length - present;
      if (present !== 0 && present !== ids.length) partial.push(`${batch}: ${present}/${ids.length}`);
    }
    const lostLives = perLife
      .filter((l) => l.missingBatches.length > 0)
      .map((l) => `life ${l.life}: saw ${l.sawDocuments} documents of ${l.acknowledgedBefore} acknowledged; missing batches ${summarizeBatches(l.missingBatches)}${l.reported ? ` (reported: ${l.reported})` : ' (NOT reported)'}`);
    return {
      kills,
      lives: perLife.length,
      seed,
      batchesAcknowledged: acked.size,
      documentsAcknowledged: acknowledgedDocs(),
      documentsLost: lost,
      partialBatches: partial,
      documentsFound: found.size,
      lostLives,
      reportedLosses: perLife.filter((l) => l.reported).length,
      perLife,
      load: load && (await load.stop()),
    };
  } finally {
    await load?.stop();
    if (!opts.profile) rmSync(profile, { recursive: true, force: true });
  }
}

/** "r0b0 … r15b1 (32 batches)" */
function summarizeBatches(batches: string[]): string {
  return batches.length <= 4 ? batches.join(', ') : `${batches[0]} … ${batches[batches.length - 1]} (${batches.length} batches)`;
}
