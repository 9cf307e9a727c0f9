/**
 * The engines a quality comparison drives, each as an `RcpClient`: the peers (MiniSearch, Orama,
 * Orama hybrid with our model's vectors) behind the real RCP server on an in-memory pair, and any
 * engine's collection load through `index/add` in batches. Browser- and Node-safe.
 */
import { RcpClient } from '../client/rcp-client.ts';
import { miniSearchIndex } from '../peers/minisearch-index.ts';
import { oramaIndex } from '../peers/orama-index.ts';
import { peerBackend } from '../peers/peer-backend.ts';
import type { EmbedTexts } from '../peers/peer-index.ts';
import { serve } from '../server/rcp-session.ts';
import { createLinkedPair } from '../transport/memory-transport.ts';
import { beirDocuments, type BeirCollection } from './beir.ts';

export const PEERS = ['minisearch', 'orama', 'orama-hybrid'] as const;
export type PeerName = (typeof PEERS)[number];
export const isPeer = (s: string): s is PeerName => (PEERS as readonly string[]).includes(s);

export const PEER_LABELS: Readonly<Record<PeerName, string>> = {
  minisearch: 'MiniSearch (defaults)',
  orama: 'Orama (defaults)',
  'orama-hybrid': "Orama hybrid (defaults, our model's vectors)",
};

/** A peer engine behind RCP, connected. `orama-hybrid` needs `embed` (our model) and its dimension. */
export async function peerClient(name: PeerName, embed?: { fn: EmbedTexts; dimension: number }): Promise<RcpClient> {
  const index = name === 'minisearch' ? miniSearchIndex() : name === 'orama' ? oramaIndex() : oramaIndex(embed?.dimension);
  const [client, server] = createLinkedPair();
  serve(server, peerBackend(index, name === 'orama-hybrid' ? embed?.fn : undefined), { 'index/add': 3_600_000 });
  const c = new RcpClient(client, { clientInfo: { name: 'rcp-quality-harness', version: '1' }, defaultTimeoutMs: 3_600_000 });
  await c.connect();
  return c;
}

export interface LoadOptions {
  signal?: AbortSignal;
  onProgress?(done: number, total: number): void;
  /** Documents per index/add (default: the engine's advertised maximum, else 256). */
  batch?: number;
  /** Ask the engine to chunk each document (`index/add` `chunk: true`, when it advertises `index.chunking`). */
  chunk?: boolean;
}

/** Adds the collection to `client` by id (re-running it is an upsert), titles as context when the engine offers it. */
export async function loadCollection(client: RcpClient, c: BeirCollection, o: LoadOptions = {}): Promise<void> {
  const docs = beirDocuments(c);
  const caps = client.capabilities?.index;
  const batch = o.batch ?? Math.min(256, caps?.maxDocuments ?? 256);
  const contextual = caps?.contextual === true;
  const chunk = o.chunk === true && caps?.chunking === true ? { chunk: true } : {};
  for (let i = 0; i < docs.length; i += batch) {
    await client.request('index/add', { documents: docs.slice(i, i + batch), ...chunk, ...(contextual ? { contextual: true } : {}) }, { signal: o.signal, timeoutMs: 3_600_000 });
    o.onProgress?.(Math.min(docs.length, i + batch), docs.length);
  }
}
