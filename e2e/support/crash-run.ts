/**
 * Crash test: ingest into one profile, SIGKILL the stdio bridge's whole process tree while an
 * `index/add` is in flight (at its first progress frame), restart, repeat; then check that every
 * acknowledged document survived and that no batch is partly visible (each is all or nothing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killTree, spawnStdio, type StdioBridge } from './bridge-process.ts';

export interface CrashReport {
  kills: number;
  batchesAcknowledged: number;
  documentsAcknowledged: number;
  documentsLost: number;
  partialBatches: string[];
  documentsFound: number;
}

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1 } };

async function start(profile: string): Promise<StdioBridge> {
  const b = spawnStdio(['--profile', profile]);
  b.send(INIT);
  const r = await b.response('init');
  if (!r.result) throw new Error(`initialize failed: ${JSON.stringify(r)}`);
  return b;
}

export async function crashRun(kills: number, docsPerBatch = 150, log: (line: string) => void = () => {}): Promise<CrashReport> {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-crash-'));
  const sent = new Map<string, string[]>();
  const acked = new Set<string>();
  try {
    for (let round = 0; round < kills; round++) {
      const b = await start(profile);
      // A few batches acknowledged in this life, then one killed mid-ingest.
      const before = 1 + (round % 3);
      for (let i = 0; i <= before; i++) {
        const batch = `r${round}b${i}`;
        const ids = Array.from({ length: docsPerBatch }, (_, d) => `${batch}d${d}`);
        sent.set(batch, ids);
        const docs = ids.map((id, d) => ({ id, text: `crash test ${batch} document ${d} about whales and ships`, meta: { batch } }));
        b.send({ jsonrpc: '2.0', id: batch, method: 'index/add', params: { documents: docs, _meta: { progressToken: batch } } });
        if (i < before) {
          const r = await b.response(batch);
          if (r.result) acked.add(batch);
          continue;
        }
        await b.waitFor((m) => m.method === 'notifications/progress' && m.params?.progressToken === batch);
        const tree = killTree(b.child.pid!);
        await b.exited;
        // The answer may have been written just before the kill: then it was acknowledged.
        if (b.lines.some((l) => l.includes(`"id":"${batch}","result"`))) acked.add(batch);
        log(`kill ${round + 1}/${kills}: ${tree.length} processes, ${acked.size} batches acknowledged so far`);
      }
    }
    const b = await start(profile);
    const found = new Set<string>();
    for (let offset = 0; ; offset += 1000) {
      const r = await (b.send({ jsonrpc: '2.0', id: `list${offset}`, method: 'x-inpage/documents', params: { offset, limit: 1000 } }), b.response(`list${offset}`));
      for (const d of r.result.documents) found.add(d.id);
      if (r.result.documents.length < 1000) break;
    }
    await b.end();
    let lost = 0;
    const partial: string[] = [];
    for (const [batch, ids] of sent) {
      const present = ids.filter((id) => found.has(id)).length;
      if (acked.has(batch)) lost += ids.length - present;
      if (present !== 0 && present !== ids.length) partial.push(`${batch}: ${present}/${ids.length}`);
    }
    return {
      kills,
      batchesAcknowledged: acked.size,
      documentsAcknowledged: acked.size * docsPerBatch,
      documentsLost: lost,
      partialBatches: partial,
      documentsFound: found.size,
    };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
