/**
 * A load generator for the crash test and the soak: a second stdio bridge on a profile of its own
 * that keeps ingesting (multi-passage documents, so its worker also embeds in the background) and
 * searching until stopped, so kills in the crash test happen on a busy machine. It checks its own
 * answers too: every request must be answered, and a failed write is counted.
 */
import { spawnStdio } from './bridge-process.ts';

export interface LoadReport {
  adds: number;
  retrieves: number;
  failures: string[];
}

export interface Load {
  stop(): Promise<LoadReport>;
}

const WORDS = ['harpoon', 'whale', 'ship', 'congress', 'union', 'liberty', 'ocean', 'captain', 'tax', 'railroad', 'sea', 'crew'];

export async function startLoad(log: (line: string) => void = () => {}): Promise<Load> {
  const b = spawnStdio();
  b.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1 } });
  const init = await b.response('init');
  if (!init.result) throw new Error(`load generator: initialize failed: ${JSON.stringify(init)}`);
  const report: LoadReport = { adds: 0, retrieves: 0, failures: [] };
  let stopping = false;
  let n = 0;
  const text = (i: number) => Array.from({ length: 400 }, (_, w) => WORDS[(i * 7 + w * 3) % WORDS.length]).join(' ');
  const loop = (async () => {
    while (!stopping) {
      const id = `load-add-${n}`;
      const docs = Array.from({ length: 40 }, (_, d) => ({ id: `load-${n % 50}-${d}`, text: text(n * 40 + d) }));
      b.send({ jsonrpc: '2.0', id, method: 'index/add', params: { documents: docs, chunk: true } });
      const r = await b.response(id);
      if (r.result) report.adds++;
      else report.failures.push(`${id}: ${JSON.stringify(r.error).slice(0, 200)}`);
      for (let q = 0; q < 5 && !stopping; q++) {
        const qid = `load-q-${n}-${q}`;
        b.send({ jsonrpc: '2.0', id: qid, method: 'retrieve', params: { query: `${WORDS[(n + q) % WORDS.length]} ${WORDS[q]}`, k: 10 } });
        const a = await b.response(qid);
        if (a.result) report.retrieves++;
        else report.failures.push(`${qid}: ${JSON.stringify(a.error).slice(0, 200)}`);
      }
      n++;
    }
  })();
  loop.catch((e: Error) => report.failures.push(`load generator stopped: ${e.message.slice(0, 200)}`));
  log('load generator running (its own bridge and profile)');
  let stopped: Promise<LoadReport> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await loop.catch(() => undefined);
        await b.end();
        log(`load generator: ${report.adds} adds, ${report.retrieves} retrieves, ${report.failures.length} failures`);
        return report;
      })()),
  };
}
