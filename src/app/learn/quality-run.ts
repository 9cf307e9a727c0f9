/**
 * One quality comparison in the page: a collection, run through the engines chosen — a fresh
 * in-page engine of ours (its own worker and database, deleted afterwards) with several retrieve
 * configurations, the peers (MiniSearch, Orama, Orama hybrid fed our model's vectors, each behind
 * RCP), and any remote RCP engine over HTTP that already holds the collection. The numbers come
 * from src/eval, the code `npm run eval` runs. No DOM here: the panel shows what this reports.
 */
import { HttpTransport } from '../../transport/http-transport.ts';
import { RcpClient } from '../../client/rcp-client.ts';
import type { BeirCollection } from '../../eval/beir.ts';
import { loadCollection, PEER_LABELS, peerClient, type PeerName } from '../../eval/engines.ts';
import { runConfig, type ConfigRun, type RunConfig } from '../../eval/harness.ts';
import { decodeVectors } from '../../protocol/vector-codec.ts';
import { count } from '../format.ts';

export type EngineChoice =
  | { kind: 'fresh'; configs: RunConfig[] }
  | { kind: 'peer'; name: PeerName }
  | { kind: 'remote'; url: string; token?: string; configs: RunConfig[] };

/** A fresh engine of ours: its client, how many chunks still wait for vectors, and its removal. */
export interface FreshEngine {
  client: RcpClient;
  /** Chunks not embedded yet, or a reason dense search will never be ready (the model failed). */
  pending(): Promise<number | string>;
  dispose(): Promise<void>;
}

export interface QualityEvents {
  /** What is happening now, with counts when known. */
  stage(text: string, done?: number, total?: number): void;
  result(run: ConfigRun): void;
}

const clientInfo = { name: 'rcp-quality-harness', version: '1' };

/** Our model's vectors through the fresh engine's `embed` (§7.3), batch by its advertised limit. */
function embedder(client: RcpClient): { fn: (texts: string[], kind: 'query' | 'document') => Promise<Float32Array[]>; dimension: number } | undefined {
  const e = client.capabilities?.embed;
  if (!e) return undefined;
  const batch = e.batchLimit ?? 32;
  const binary = e.encodings?.includes('f32-base64') === true;
  return {
    dimension: e.dimension,
    fn: async (texts, kind) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batch) {
        const r = await client.request('embed', { inputs: texts.slice(i, i + batch), kind, ...(binary ? { encoding: 'f32-base64' as const } : {}) }, { timeoutMs: 600_000 });
        out.push(...decodeVectors(r.vectors, r.encoding ?? 'json', r.dimension ?? e.dimension, 'vectors'));
      }
      return out;
    },
  };
}

async function waitForVectors(fresh: FreshEngine, ev: QualityEvents, signal: AbortSignal): Promise<string | undefined> {
  let most = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const p = await fresh.pending();
    if (typeof p === 'string') return p;
    if (p === 0) return undefined;
    most = Math.max(most, p);
    ev.stage(`Embedding the collection with our model: ${count(p)} passages to go`, most - p, most);
    await new Promise((ok) => setTimeout(ok, 500));
  }
}

export async function runQuality(c: BeirCollection, engines: readonly EngineChoice[], deps: { fresh(): Promise<FreshEngine> }, ev: QualityEvents, signal: AbortSignal): Promise<ConfigRun[]> {
  const runs: ConfigRun[] = [];
  const progress = (label: string) => (done: number, total: number) => ev.stage(label, done, total);
  const needFresh = engines.some((e) => e.kind === 'fresh' || (e.kind === 'peer' && e.name === 'orama-hybrid'));
  let fresh: FreshEngine | undefined;
  try {
    if (needFresh) {
      ev.stage('Starting a fresh engine (its own worker and database)…');
      fresh = await deps.fresh();
      // Orama hybrid alone only borrows the fresh engine's model (embed): nothing to index then.
      if (engines.some((e) => e.kind === 'fresh')) {
        await loadCollection(fresh.client, c, { signal, onProgress: progress(`Indexing ${c.name} into the fresh engine`) });
        const why = await waitForVectors(fresh, ev, signal);
        if (why) ev.stage(`Dense search is unavailable: ${why}`);
      }
    }
    for (const e of engines) {
      if (e.kind === 'fresh') {
        for (const cfg of e.configs) {
          ev.stage(`rcp-in-page ${cfg.label}: queries`);
          const run = await runConfig('rcp-in-page', (p, s) => fresh!.client.request('retrieve', p, { signal: s }), c, cfg, { signal, onQuery: progress(`rcp-in-page ${cfg.label}: queries`) });
          runs.push(run);
          ev.result(run);
        }
      } else if (e.kind === 'peer') {
        const embed = e.name === 'orama-hybrid' ? fresh && embedder(fresh.client) : undefined;
        if (e.name === 'orama-hybrid' && !embed) throw new Error('Orama hybrid needs our model, and the fresh engine has no embed capability');
        ev.stage(`${PEER_LABELS[e.name]}: indexing`);
        const client = await peerClient(e.name, embed);
        try {
          await loadCollection(client, c, { signal, onProgress: progress(`${PEER_LABELS[e.name]}: indexing${embed ? ' (embedding with our model)' : ''}`) });
          const run = await runConfig(e.name, (p, s) => client.request('retrieve', p, { signal: s }), c, { label: e.name }, { signal, onQuery: progress(`${PEER_LABELS[e.name]}: queries`) });
          runs.push(run);
          ev.result(run);
        } finally {
          client.close();
        }
      } else {
        ev.stage(`Connecting to ${e.url}…`);
        const client = new RcpClient(new HttpTransport(e.url, e.token ? { headers: { Authorization: `Bearer ${e.token}` } } : {}), { clientInfo });
        try {
          await client.connect({ signal, timeoutMs: 30_000 });
          for (const cfg of e.configs) {
            const run = await runConfig(e.url, (p, s) => client.request('retrieve', p, { signal: s }), c, cfg, { signal, onQuery: progress(`${e.url} ${cfg.label}: queries`) });
            runs.push(run);
            ev.result(run);
          }
        } finally {
          client.close();
        }
      }
    }
    return runs;
  } finally {
    await fresh?.dispose();
  }
}
