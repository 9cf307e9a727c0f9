/**
 * The texts scripts/build-sample-vectors.ts embeds are exactly those the engine asks its embedder
 * for when the playground seeds the sample (`index/add` with chunk + contextual, background
 * embedding): otherwise every precomputed row would miss and the page would embed it all again.
 */
import { describe, expect, it } from 'vitest';
import { sampleChunkTexts } from '../../scripts/build-sample-vectors.ts';
import type { SampleCorpus } from '../../scripts/build-sample.ts';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

const para = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} sentence number ${i} of the chapter.`).join(' ');

const corpus: SampleCorpus = {
  version: 'test',
  documents: [
    { id: 'md-1', text: `# Loomings\n\n${para(120, 'Whale')}\n\n## Later\n\n${para(60, 'Sea')}`, meta: { title: 'Loomings', source: 'moby-dick', author: 'Herman Melville', year: 1851, date: '1851-10-18', tags: ['novel'], chapter: '1', uri: 'urn:x:1' } },
    { id: 'sotu-1', text: para(10, 'Union'), meta: { title: 'State of the Union 1790', source: 'sotu', author: 'George Washington', year: 1790, date: '1790-01-01', tags: ['speech'], name: 'George Washington', party: 'None', uri: 'urn:x:2' } },
  ],
};

describe('sample vectors cover the engine\'s own embedding inputs', () => {
  it('the builder\'s chunk texts equal the texts the engine embeds for the same documents', async () => {
    const seen: string[] = [];
    const embedder: Embedder = {
      identity: 'recording@test',
      dimension: 2,
      normalized: true,
      async embed(texts, kind) {
        if (kind === 'document') seen.push(...texts);
        return texts.map(() => Float32Array.of(1, 0));
      },
    };
    const engine = new Engine({ store: new MemoryStore(), embedder, embedInBackground: true });
    await engine.open();
    await engine.add(corpus.documents.map((d) => ({ id: d.id, text: d.text, meta: d.meta as unknown as Record<string, unknown> })), { chunk: true, contextual: true });
    await engine.whenReembedded();
    const { texts, perDocument } = sampleChunkTexts(corpus);
    expect(perDocument[0]).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...texts].sort());
  });
});
