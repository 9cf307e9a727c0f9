/**
 * The eval's vector cache (cli/vector-cache.ts): query vectors are cached apart from document
 * vectors of the same text (a model with prefixes embeds them differently), only when asked, and
 * `saveEveryMs` writes the cache during a long run so a stopped run resumes.
 */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedEmbedder } from '../../cli/vector-cache.ts';
import type { Embedder } from '../../src/engine/contracts.ts';

/** Vectors that tell kind and call apart: [kind, call number]. */
function recorder(): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    identity: 'rec@1', dimension: 2, normalized: false, calls,
    async embed(texts, kind) {
      calls.push(texts);
      return texts.map(() => Float32Array.of(kind === 'query' ? 1 : 0, calls.length));
    },
  };
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'vcache-'));
  dirs.push(d);
  return d;
};

describe('CachedEmbedder', () => {
  it('caches queries only with `queries`, apart from documents of the same text', async () => {
    const inner = recorder();
    const c = new CachedEmbedder(inner, tmp(), { queries: true });
    const [d] = await c.embed(['whale'], 'document');
    const [q] = await c.embed(['whale'], 'query');
    expect([d[0], q[0]]).toEqual([0, 1]);
    await c.embed(['whale'], 'query');
    expect(inner.calls).toHaveLength(2);
    const plain = recorder();
    const p = new CachedEmbedder(plain, tmp());
    await p.embed(['whale'], 'query');
    await p.embed(['whale'], 'query');
    expect(plain.calls).toHaveLength(2);
  });

  it('saveEveryMs writes the cache during the run; a new instance then embeds nothing again', async () => {
    const dir = tmp();
    const c = new CachedEmbedder(recorder(), dir, { saveEveryMs: 0 });
    await c.embed(['a', 'b'], 'document');
    expect(existsSync(join(dir, 'rec_1.bin'))).toBe(true);
    const again = recorder();
    const c2 = new CachedEmbedder(again, dir);
    expect((await c2.embed(['b', 'a'], 'document')).map((v) => v[1])).toEqual([1, 1]);
    expect(again.calls).toHaveLength(0);
    // Without saveEveryMs nothing is written until save().
    const dir2 = tmp();
    await new CachedEmbedder(recorder(), dir2).embed(['a'], 'document');
    expect(existsSync(join(dir2, 'rec_1.bin'))).toBe(false);
  });
});
