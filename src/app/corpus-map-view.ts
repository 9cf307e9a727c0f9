/**
 * "Map of your documents": the passages on the first two principal axes of their vectors, drawn
 * on a canvas, coloured by document (or by graph community, with a `MapColouring` such as
 * community-layer.ts), with the current query (a cross) and its hits (ringed) marked. The
 * projection is computed in the worker (`x-inpage/map`); the page only draws, so it never freezes.
 * Computed when the panel is opened and again when the results or the colouring change.
 */
import { corpusMap, hasInpage, type InpageMapResult } from '../client/inpage.ts';
import type { RcpClient } from '../client/rcp-client.ts';
import type { RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { count, plural } from './format.ts';

const SAMPLE = 2000;
const LEGEND = 8;
/** Maps asked again when the index moved between the map and its colouring (both must be of one version). */
const COLOURING_ATTEMPTS = 3;

/** A distinct colour per rank (golden-angle hues). */
export const colour = (rank: number) => `hsl(${(rank * 137.508) % 360} 65% 45%)`;

export type MapPoint = InpageMapResult['points'][number];

/** How dots are coloured when not by document: what the map asks for, and how it paints the answer. */
export interface MapColouring {
  /** The community level to colour by (sent as `communityLevel`), or undefined to colour by document. */
  level(): number | undefined;
  /** The colours for `m` (its points tagged at `level()`), or undefined when its version is not the colouring's (map again). */
  paint(m: InpageMapResult, signal: AbortSignal): Promise<MapPaint | undefined>;
  /** Called when the person changes the colouring. */
  onChange(fn: () => void): void;
}

export interface MapPaint {
  colour(p: MapPoint): string;
  /** What a dot's hover title adds ("whale, ship, sea"). */
  label(p: MapPoint): string | undefined;
  legend: HTMLElement[];
  /** "each dot coloured by …" */
  colouredBy: string;
  /** Set on the canvas as data-colouring. */
  name: string;
}

export function mountCorpusMap(
  client: RcpClient,
  results: () => { params: RetrieveParams; result: RetrieveResult } | undefined,
  open?: (docId: string, opener: HTMLElement) => void,
  colouring?: MapColouring,
): void {
  const panel = byId<HTMLDetailsElement>('map-panel');
  // Shown from the start (its place is reserved, so the results do not move down when it mounts);
  // hidden only when this engine cannot draw it.
  const available = hasInpage(client) && (client.capabilities?.['x-inpage'] as { map?: boolean } | undefined)?.map === true;
  panel.hidden = !available;
  if (!available) return;
  const canvas = byId<HTMLCanvasElement>('map-canvas');
  const summary = byId('map-summary');
  const legend = byId('map-legend');
  const error = byId('map-error');
  let inflight: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The drawn points in canvas pixels (CSS), for pointing at one. */
  let placed: { x: number; y: number; doc: string; label?: string }[] = [];
  const nearest = (ev: MouseEvent) => {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left;
    const y = ev.clientY - r.top;
    let best: { p: (typeof placed)[number]; d: number } | undefined;
    for (const p of placed) {
      const d = Math.hypot(p.x - x, p.y - y);
      if (d <= 8 && (!best || d < best.d)) best = { p, d };
    }
    return best?.p;
  };
  canvas.addEventListener('mousemove', (ev) => {
    const p = nearest(ev);
    canvas.title = p ? `${p.doc}${p.label ? ` (${p.label})` : ''} — click to open` : '';
    canvas.style.cursor = p && open ? 'pointer' : '';
  });
  canvas.addEventListener('click', (ev) => {
    const p = nearest(ev);
    if (p && open) open(p.doc, canvas);
  });

  const draw = (m: InpageMapResult, hitIds: ReadonlySet<string>, paint?: MapPaint) => {
    const counts = new Map<string, number>();
    for (const p of m.points) counts.set(p.doc, (counts.get(p.doc) ?? 0) + 1);
    const docs = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const rankOf = new Map(docs.map(([d], i) => [d, i]));
    const fill = paint ? (p: MapPoint) => paint.colour(p) : (p: MapPoint) => colour(rankOf.get(p.doc)!);
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 600;
    const h = canvas.clientHeight || 360;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const xs = m.points.map((p) => p.x).concat(m.query ? [m.query.x] : []);
    const ys = m.points.map((p) => p.y).concat(m.query ? [m.query.y] : []);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const pad = 14;
    const sx = (x: number) => pad + ((x - x0) / (x1 - x0 || 1)) * (w - 2 * pad);
    const sy = (y: number) => h - pad - ((y - y0) / (y1 - y0 || 1)) * (h - 2 * pad);
    ctx.globalAlpha = 0.65;
    for (const p of m.points) {
      if (hitIds.has(p.id)) continue;
      ctx.fillStyle = fill(p);
      ctx.beginPath();
      ctx.arc(sx(p.x), sy(p.y), 2.5, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    let hits = 0;
    for (const p of m.points) {
      if (!hitIds.has(p.id)) continue;
      hits++;
      ctx.fillStyle = fill(p);
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(sx(p.x), sy(p.y), 5.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    if (m.query) {
      const qx = sx(m.query.x);
      const qy = sy(m.query.y);
      for (const [style, width] of [['#fff', 5], ['#000', 2]] as const) {
        ctx.strokeStyle = style;
        ctx.lineWidth = width;
        ctx.beginPath();
        ctx.moveTo(qx - 8, qy);
        ctx.lineTo(qx + 8, qy);
        ctx.moveTo(qx, qy - 8);
        ctx.lineTo(qx, qy + 8);
        ctx.stroke();
      }
    }
    placed = m.points.map((p) => ({ x: sx(p.x), y: sy(p.y), doc: p.doc, label: paint?.label(p) }));
    canvas.dataset.colouring = paint?.name ?? 'document';
    canvas.dataset.points = String(m.points.length);
    canvas.dataset.documents = String(docs.length);
    canvas.dataset.hits = String(hits);
    if (m.query) canvas.dataset.query = `${m.query.x.toFixed(4)},${m.query.y.toFixed(4)}`;
    else delete canvas.dataset.query;
    const explained = m.explained ? ` The two axes show ${Math.round((m.explained[0] + m.explained[1]) * 100)}% of the variation between passages.` : '';
    const sampled = m.withVectors > SAMPLE ? ` (an even sample of ${count(m.withVectors)})` : '';
    const missing = m.total > m.withVectors ? ` ${plural(m.total - m.withVectors, 'passage')} not embedded yet ${m.total - m.withVectors === 1 ? 'is' : 'are'} not shown.` : '';
    const marks = m.query ? ` The cross is your query${hits ? `; the ${plural(hits, 'ringed dot')} ${hits === 1 ? 'is' : 'are'} its results` : ''}.` : ' Search to see where your query lands.';
    summary.textContent = `${plural(m.points.length, 'passage')} from ${plural(docs.length, 'document')}${sampled}, each dot coloured by ${paint?.colouredBy ?? 'its document'}; nearby dots are close in meaning.${explained}${marks}${missing}`;
    canvas.setAttribute('aria-label', `Map of ${plural(m.points.length, 'passage')} from ${plural(docs.length, 'document')}${m.query ? ', with your query and its results marked' : ''}`);
    if (paint) return void legend.replaceChildren(...paint.legend);
    legend.replaceChildren(
      ...docs.slice(0, LEGEND).map(([doc, n], i) => el('li', {}, el('span', { class: 'swatch', attrs: { style: `background:${colour(i)}` } }), ` ${doc} (${n})`)),
      ...(docs.length > LEGEND ? [el('li', { class: 'muted' }, `and ${plural(docs.length - LEGEND, 'more document')}`)] : []),
    );
  };

  const refresh = async () => {
    if (!panel.open) return;
    inflight?.abort();
    const ctrl = new AbortController();
    inflight = ctrl;
    error.replaceChildren();
    const shown = results();
    const query = typeof shown?.params.query === 'string' ? shown.params.query : undefined;
    const hitIds = new Set((shown?.result.hits ?? []).map((h) => String(h.id)));
    const level = colouring?.level();
    summary.textContent = level === undefined ? 'Computing the map in the engine…' : 'Computing the map and its communities in the engine (the first time builds the passage graph: seconds on a large index)…';
    try {
      let m: InpageMapResult | undefined;
      let paint: MapPaint | undefined;
      for (let attempt = 0; attempt < COLOURING_ATTEMPTS && !paint; attempt++) {
        m = await corpusMap(client, { limit: SAMPLE, include: [...hitIds].slice(0, 1000), query, ...(level !== undefined ? { communityLevel: level } : {}) }, { signal: ctrl.signal });
        if (level === undefined || m.points.length === 0) break;
        paint = await colouring!.paint(m, ctrl.signal);
      }
      if (ctrl.signal.aborted || !m) return;
      canvas.hidden = m.points.length === 0;
      if (m.points.length === 0) {
        legend.replaceChildren();
        summary.textContent = m.model
          ? m.total === 0
            ? 'Your index is empty: add documents to see their map.'
            : `None of the ${plural(m.total, 'passage')} has a vector from ${m.model.identity} yet; the map appears once they are embedded.`
          : 'The map needs an embedding model, and none is running.';
        return;
      }
      draw(m, hitIds, paint);
    } catch (e) {
      if (!ctrl.signal.aborted) {
        summary.textContent = '';
        error.replaceChildren(errorView(e, 'Could not compute the map'));
      }
    } finally {
      if (inflight === ctrl) inflight = undefined;
    }
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 200);
  };
  panel.addEventListener('toggle', () => panel.open && void refresh());
  byId('map-refresh').addEventListener('click', () => void refresh());
  colouring?.onChange(() => void refresh());
  // New results (a new query or a refresh after an import): redraw with them marked.
  new MutationObserver(soon).observe(byId('hits'), { attributes: true, attributeFilter: ['data-request', 'data-ids'] });
}
