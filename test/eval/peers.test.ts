/** The engines people would pick instead, behind the real RCP server: they index, search, and pass the L0 checks. */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.ts';
import { StreamWire } from '../../src/conformance/stream-wire.ts';
import { peerClient } from '../../src/eval/engines.ts';
import { miniSearchIndex } from '../../src/peers/minisearch-index.ts';
import { oramaIndex } from '../../src/peers/orama-index.ts';
import { peerBackend } from '../../src/peers/peer-backend.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { HashEmbedder } from '../support/engine.ts';

const docs = [
  { id: 'w', text: 'the white whale swims in the sea', meta: { title: 'Moby' } },
  { id: 's', text: 'a ship sails on the sea' },
  { id: 'l', text: 'a lighthouse on the coast' },
];
const embedder = new HashEmbedder();
const embed = { fn: (t: string[]) => embedder.embed(t), dimension: embedder.dimension };

describe('peer engines over RCP', () => {
  for (const name of ['minisearch', 'orama', 'orama-hybrid'] as const) {
    it(`${name}: upserts, searches in its modes, deletes`, async () => {
      const c = await peerClient(name, embed);
      expect(c.serverInfo?.capabilities.index).toEqual({ writable: true });
      await c.request('index/add', { documents: docs });
      await c.request('index/add', { documents: [{ id: 's', text: 'a ship with a whale on board' }] });
      const modes = c.serverInfo!.capabilities.retrieve!.modes!;
      for (const mode of modes) {
        const r = await c.request('retrieve', { query: 'whale', k: 5, mode });
        // Orama's vector mode keeps only cosine ≥ 0.8 (its default threshold): the toy embedder's whale is not that close.
        if (mode === 'dense') expect(r.hits.every((h) => ['w', 's', 'l'].includes(String(h.id)))).toBe(true);
        else expect(r.hits.map((h) => h.id).sort(), mode).toEqual(mode === 'sparse' ? ['s', 'w'] : expect.arrayContaining(['s', 'w']));
        expect(new Set(r.hits.map((h) => h.id)).size).toBe(r.hits.length);
      }
      expect(await c.request('index/delete', { ids: ['w', 'w', 'nope'] })).toEqual({ deleted: 1 });
      expect((await c.request('retrieve', { query: 'whale', k: 5, mode: 'sparse' })).hits.map((h) => h.id)).toEqual(['s']);
      await expect(c.request('retrieve', { query: 'whale', k: 5, mode: 'bogus' as never })).rejects.toMatchObject({ code: -32005 });
      c.close();
    });
  }

  it('MiniSearch behind RCP certifies L0 with our checker (no filter or citations: not L1)', async () => {
    const [client, server] = createLinkedPair();
    serve(server, peerBackend(miniSearchIndex()));
    const r = await runConformance(new StreamWire({ transport: client, kind: 'port', label: 'minisearch', quietMs: 40 }), { timeoutMs: 2000, startupMs: 2000 });
    expect(r.checks.filter((x) => x.status === 'fail' && x.id !== 'declares-level').map((x) => `${x.id}: ${x.detail}`)).toEqual([]);
    expect(r.checks.find((x) => x.id === 'index-add-upsert')!.status).toBe('pass');
  });

  it('Orama hybrid needs our model', () => {
    expect(() => peerBackend(oramaIndex(64))).toThrow(/needs vectors/);
  });
});
