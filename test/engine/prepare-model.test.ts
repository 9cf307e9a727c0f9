/**
 * A request that will embed its query tells the embedder to start loading at once (`prepare`),
 * before its other reads; a default-mode request served sparse while the model loads does not
 * (a bundle's model then waits for the first answer: src/worker.ts).
 */
import { describe, expect, it } from 'vitest';
import { HashEmbedder, makeEngine, search } from '../support/engine.ts';

class LazyEmbedder extends HashEmbedder {
  prepared = 0;
  loaded = false;
  ready(): boolean {
    return this.loaded;
  }
  prepare(): void {
    this.prepared++;
  }
}

describe('Embedder.prepare', () => {
  it('is called by explicit dense and hybrid requests, not by sparse or by a default request served sparse', async () => {
    const embedder = new LazyEmbedder();
    const { engine } = await makeEngine({ embedder });
    await engine.add([{ id: 'a', text: 'white whale' }, { id: 'b', text: 'stock market' }]);
    await search(engine, { query: 'whale', k: 2 }); // default mode, model "loading": sparse
    await search(engine, { query: 'whale', k: 2, mode: 'sparse' });
    expect(embedder.prepared).toBe(0);
    const r = await search(engine, { query: 'whale', k: 2, mode: 'hybrid' });
    expect(r.hits[0].id).toBe('a');
    await search(engine, { query: 'whale', k: 2, mode: 'dense' });
    expect(embedder.prepared).toBe(2);
  });
});
