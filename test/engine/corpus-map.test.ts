import { describe, expect, it } from 'vitest';
import { evenSample, principalAxes, project } from '../../src/engine/query/corpus-map.ts';
import { HashEmbedder, makeEngine } from '../support/engine.ts';

describe('corpus map: PCA by power iteration', () => {
  it('finds the directions of largest and second-largest spread', () => {
    // Points spread 10× along (1,1,0)/√2, 3× along z, barely along (1,-1,0).
    const rows: Float32Array[] = [];
    for (let i = 0; i < 200; i++) {
      const a = Math.sin(i * 1.7) * 10;
      const b = Math.cos(i * 2.3) * 3;
      const c = Math.sin(i * 0.9) * 0.1;
      rows.push(Float32Array.from([5 + (a + c) / Math.SQRT2, 5 + (a - c) / Math.SQRT2, b]));
    }
    const basis = principalAxes(rows, 3);
    expect(Math.abs(basis.axes[0][0])).toBeCloseTo(Math.SQRT1_2, 2);
    expect(Math.abs(basis.axes[0][1])).toBeCloseTo(Math.SQRT1_2, 2);
    expect(Math.abs(basis.axes[1][2])).toBeCloseTo(1, 2);
    expect(basis.explained[0]).toBeGreaterThan(basis.explained[1]);
    expect(basis.explained[0] + basis.explained[1]).toBeGreaterThan(0.99);
    const [x, y] = project(basis, Float32Array.from(basis.mean));
    expect(Math.abs(x) + Math.abs(y)).toBeLessThan(1e-5);
  });

  it('samples evenly and caps the sample', () => {
    expect(evenSample([...Array(10).keys()], 5)).toEqual([0, 2, 4, 6, 8]);
    expect(evenSample([1, 2], 5)).toEqual([1, 2]);
  });

  it('maps the engine\'s passages, includes asked-for hits, places the query, and reuses the basis', async () => {
    const { engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add(
      Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, text: i % 2 ? `whale harpoon sea ship ${i}` : `congress union liberty law ${i}` })),
      { chunk: true },
    );
    const m = await engine.corpusMap({ limit: 10, include: ['d7', 'd8'], query: 'whale ship' });
    expect(m.withVectors).toBe(40);
    const sampled = (await engine.corpusMap({ limit: 10 })).points.map((p) => p.id);
    expect(sampled).toHaveLength(10);
    expect(m.points.length).toBe(10 + ['d7', 'd8'].filter((id) => !sampled.includes(id)).length); // the sample + the asked-for hits it missed
    expect(new Set(m.points.map((p) => p.id)).size).toBe(m.points.length);
    expect(m.points.map((p) => p.id)).toEqual(expect.arrayContaining(['d7', 'd8']));
    expect(m.query).toBeDefined();
    // The query lands on the whale side of the first axis.
    const side = (ids: string[]) => ids.map((id) => m.points.find((p) => p.id === id)!.x);
    const whale = side(['d7'])[0];
    const congress = side(['d8'])[0];
    expect(Math.sign(m.query!.x - (whale + congress) / 2)).toBe(Math.sign(whale - congress));
    const again = await engine.corpusMap({ limit: 10 });
    expect(again.points.slice(0, 10)).toEqual(m.points.slice(0, 10));
  });
});
