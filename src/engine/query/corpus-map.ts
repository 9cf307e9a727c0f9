/**
 * A 2-D map of the corpus (the `x-inpage/map` vendor method): the passages' stored vectors
 * projected on their first two principal components. PCA by power iteration with deflation on a
 * sample of at most 5,000 vectors (n × d work per step, no d × d matrix), so it needs no library and
 * runs in the worker in well under a second. The basis is kept per index version and model; the
 * query and any asked-for passages (the current hits) are projected onto it.
 */
import { checkAborted } from '../../util/abort.ts';
import { segmentVectors, type DenseModel } from '../index/dense.ts';
import type { IndexView } from '../index/view.ts';
import { hitId } from '../index/hit-id.ts';
import { docAt, type Candidate } from '../index/view.ts';

export const MAP_MAX_SAMPLE = 5000;

export interface MapPoint {
  /** The passage's chunk-unit hit id (as `retrieve` names it). */
  id: string;
  doc: string;
  x: number;
  y: number;
  /** Its graph community at the level asked for (`MapOptions.communityLevel`); absent when it is not in the graph (quarantined). */
  community?: string;
}

export interface Basis {
  mean: Float32Array;
  axes: [Float32Array, Float32Array];
  /** Share of the sample's variance each axis explains. */
  explained: [number, number];
}

/** Live passages that have a vector from `model`, as (id, doc, vector view) in index order. */
export function* passagesWithVectors(view: IndexView, model: DenseModel): Generator<{ id: string; doc: string; vector: Float32Array }> {
  const dim = model.dimension;
  for (let si = 0; si < view.segments.length; si++) {
    const seg = view.segments[si];
    const vecs = segmentVectors(seg, model);
    if (!vecs) continue;
    const dead = view.dead[si];
    for (let local = 0; local < seg.size; local++) {
      const doc = docAt(seg, local);
      if (!doc || dead?.[local] === 1) continue;
      const id = hitId({ seg, local, doc } as Candidate, 'chunk');
      yield { id, doc: doc.id, vector: vecs.vector(local) }; // as stored (int8 codes · scale)
    }
  }
}

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

function normalize(v: Float32Array): number {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return n;
}

/**
 * The top two principal axes of `rows` (each of length `dim`) by power iteration on the implicit
 * covariance XᵀX/n, the second kept orthogonal to the first. Deterministic (fixed start vectors).
 */
export function principalAxes(rows: readonly Float32Array[], dim: number, iterations = 60, signal?: AbortSignal): Basis {
  const n = rows.length;
  const mean = new Float32Array(dim);
  for (const r of rows) for (let i = 0; i < dim; i++) mean[i] += r[i];
  if (n > 0) for (let i = 0; i < dim; i++) mean[i] /= n;
  const centered = rows.map((r) => {
    const c = new Float32Array(dim);
    for (let i = 0; i < dim; i++) c[i] = r[i] - mean[i];
    return c;
  });
  let total = 0;
  for (const c of centered) total += dot(c, c);
  const axes: Float32Array[] = [];
  const eigen: number[] = [];
  const proj = new Float32Array(n);
  for (let k = 0; k < 2; k++) {
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) v[i] = 1 + Math.sin((i + 1) * (k + 1) * 12.9898) * 0.5; // a fixed, generic start
    normalize(v);
    let lambda = 0;
    for (let it = 0; it < iterations; it++) {
      if (it % 10 === 0) checkAborted(signal);
      for (const a of axes) {
        const d = dot(v, a);
        for (let i = 0; i < dim; i++) v[i] -= d * a[i];
      }
      for (let r = 0; r < n; r++) proj[r] = dot(centered[r], v);
      const next = new Float32Array(dim);
      for (let r = 0; r < n; r++) {
        const p = proj[r];
        const c = centered[r];
        for (let i = 0; i < dim; i++) next[i] += p * c[i];
      }
      for (const a of axes) {
        const d = dot(next, a);
        for (let i = 0; i < dim; i++) next[i] -= d * a[i];
      }
      lambda = normalize(next);
      v.set(next);
      if (lambda === 0) break;
    }
    axes.push(v);
    eigen.push(lambda);
  }
  return { mean, axes: [axes[0], axes[1]], explained: [total > 0 ? eigen[0] / total : 0, total > 0 ? eigen[1] / total : 0] };
}

/** `v` on the basis's two axes. */
export function project(basis: Basis, v: Float32Array): [number, number] {
  let x = 0;
  let y = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v[i] - basis.mean[i];
    x += c * basis.axes[0][i];
    y += c * basis.axes[1][i];
  }
  return [x, y];
}

/** Every `step`-th passage, so the sample spreads over the whole corpus; at most `limit`. */
export function evenSample<T>(items: readonly T[], limit: number): T[] {
  if (items.length <= limit) return [...items];
  const out: T[] = [];
  const step = items.length / limit;
  for (let i = 0; i < limit; i++) out.push(items[Math.floor(i * step)]);
  return out;
}

export interface CorpusMap {
  points: MapPoint[];
  /** Live passages in the index. */
  total: number;
  /** Of those, how many have a vector from the running model (the rest are not embedded yet). */
  withVectors: number;
  model?: { identity: string; dimension: number };
  explained?: [number, number];
  /** Where the query lands, when one was given. */
  query?: { x: number; y: number };
  /** The index version mapped (set by the engine). */
  indexVersion?: string;
}

export interface MapOptions {
  limit: number;
  /** Passage ids (e.g. the current hits) placed on the map even when the sample missed them. */
  include?: readonly string[];
  query?: string;
  /** Tag each point with its community at this level of the passage graph (`graph communities`). */
  communityLevel?: number;
  signal?: AbortSignal;
}

/** The last map's basis and sample, reused while the index version, model and sample size stay. */
export interface MapCache {
  key: string;
  basis: Basis;
  points: MapPoint[];
}

export async function corpusMap(
  view: IndexView,
  model: DenseModel | undefined,
  embedQuery: ((q: string, signal?: AbortSignal) => Promise<Float32Array>) | undefined,
  o: MapOptions,
  cache: { current?: MapCache },
): Promise<CorpusMap> {
  if (!model) return { points: [], total: view.live, withVectors: 0 };
  const all = [...passagesWithVectors(view, model)];
  const out: CorpusMap = { points: [], total: view.live, withVectors: all.length, model: { identity: model.identity, dimension: model.dimension } };
  if (all.length < 2) return out;
  const key = `${view.version}|${model.identity}|${o.limit}`;
  if (cache.current?.key !== key) {
    const sample = evenSample(all, o.limit);
    const basis = principalAxes(sample.map((s) => s.vector), model.dimension, 60, o.signal);
    cache.current = { key, basis, points: sample.map((s) => ({ id: s.id, doc: s.doc, ...xy(project(basis, s.vector)) })) };
  }
  const { basis, points } = cache.current;
  out.points = [...points];
  out.explained = basis.explained;
  if (o.include?.length) {
    const have = new Set(points.map((p) => p.id));
    const wanted = new Set(o.include.filter((id) => !have.has(id)));
    for (const s of all) if (wanted.has(s.id)) out.points.push({ id: s.id, doc: s.doc, ...xy(project(basis, s.vector)) });
  }
  if (o.query && embedQuery) out.query = xy(project(basis, await embedQuery(o.query, o.signal)));
  return out;
}

const xy = ([x, y]: [number, number]) => ({ x, y });
