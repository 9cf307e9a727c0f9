/** Formats a BenchResult as readable Markdown tables (stdout and docs/bench.md share it). */
import type { BenchResult, Latency, SizeResult, SystemAtSize } from './types.ts';

const isLat = (x: Latency | string | undefined): x is Latency => typeof x === 'object' && x !== null;
const fmt = (x: number | undefined, digits = 2): string => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));
const int = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : Math.round(x).toLocaleString('en-US'));
const kb = (b: number | undefined): string => (b === undefined || !Number.isFinite(b) ? '–' : `${(b / 1024).toFixed(2)} KiB`);
const sizeName = (n: number): string => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** Latency cell: "p50 / p95" or the reason it is missing. */
const latCell = (l: Latency | string | undefined): string =>
  isLat(l)
    ? `${l.n ? `${fmt(l.p50)} / ${fmt(l.p95)}` : 'failed'}${l.recall10 !== undefined ? ` (R ${l.recall10.toFixed(3)})` : ''}${l.failed ? ` (${l.failed} of ${l.n + l.failed} failed¹)` : ''}`
    : (l ?? '–');
/** How many times faster we are (their / ours), for a given percentile. */
const ratio = (ours: Latency | string | undefined, theirs: Latency | string | undefined, p: 'p50' | 'p95'): string =>
  isLat(ours) && isLat(theirs) && ours[p] > 0 && theirs.n > 0 ? `${(theirs[p] / ours[p]).toFixed(2)}×${theirs.failed || ours.failed ? '¹' : ''}` : '–';

interface Row {
  system: string;
  key: string;
  pick(s: SizeResult): SystemAtSize | undefined;
}

const ROWS: Row[] = [
  { system: 'ours', key: 'sparse', pick: (s) => s.engine },
  { system: 'ours', key: 'sparse+text', pick: (s) => s.engine },
  { system: 'ours', key: 'dense', pick: (s) => s.engine },
  { system: 'ours', key: 'dense, JS kernels', pick: (s) => s.engine },
  { system: 'ours', key: 'dense (exact int8 scan)', pick: (s) => s.engine },
  { system: 'ours', key: 'dense (exact int8 scan), JS kernel', pick: (s) => s.engine },
  { system: 'ours', key: 'hybrid', pick: (s) => s.engine },
  { system: 'MiniSearch', key: 'lexical', pick: (s) => s.minisearch },
  { system: 'Orama', key: 'lexical', pick: (s) => s.orama },
  { system: 'Orama', key: 'dense', pick: (s) => s.orama },
  { system: 'Orama', key: 'hybrid', pick: (s) => s.orama },
  { system: 'edgevec', key: 'dense', pick: (s) => s.edgevec },
  { system: 'EntityDB', key: 'dense', pick: (s) => s.entitydb },
];

/** The systems of the dense frontier: every dense setting each one was measured at. */
const FRONTIER: { system: string; pick: (s: SizeResult) => SystemAtSize | undefined; keep: (key: string) => boolean }[] = [
  { system: 'ours', pick: (s) => s.engine, keep: (k) => k === 'dense' || k === 'dense (exact int8 scan)' || k.startsWith('dense (shortlist ') },
  { system: 'edgevec (HNSW)', pick: (s) => s.edgevec, keep: (k) => k.startsWith('dense') },
  { system: 'Orama (exact)', pick: (s) => s.orama, keep: (k) => k === 'dense' },
  { system: 'EntityDB (exact)', pick: (s) => s.entitydb, keep: (k) => k === 'dense' },
];
const LEVELS = [0.9, 0.95, 0.99];

/** A system's measured settings at one size: [label, latency with recall], fastest first. */
function curve(s: SizeResult, f: (typeof FRONTIER)[number]): [string, Latency][] {
  const x = f.pick(s);
  if (!x) return [];
  return Object.entries(x.latency)
    .filter((e): e is [string, Latency] => f.keep(e[0]) && isLat(e[1]) && e[1].n > 0 && e[1].recall10 !== undefined)
    .sort((a, b) => a[1].p50 - b[1].p50);
}

/** The fastest setting (p50) reaching `level`, or undefined. */
const fastestAt = (points: [string, Latency][], level: number): [string, Latency] | undefined => points.find(([, l]) => l.recall10! >= level);

/**
 * Dense search as recall@10–latency curves (the largest size each system ran at, with peers):
 * every setting, then the fastest setting at recall 0.90 / 0.95 / 0.99 and our speed ratio there.
 */
function formatFrontier(sizes: SizeResult[]): string[] {
  const out: string[] = [];
  for (const s of sizes.filter((x) => x.edgevec || x.orama)) {
    const curves = FRONTIER.map((f) => ({ system: f.system, points: curve(s, f) })).filter((c) => c.points.length > 0);
    if (curves.length < 2) continue;
    out.push(`### Dense frontier at ${sizeName(s.size)} chunks: recall@10 against latency (warm p50 / p95, ms)`);
    out.push('');
    out.push(table(['system', 'setting', 'recall@10', 'p50', 'p95', 'first query (cold)'], curves.flatMap((c) => c.points.map(([k, l]) => [c.system, k, l.recall10!.toFixed(3), fmt(l.p50), fmt(l.p95), fmt(l.firstMs)]))));
    out.push('');
    out.push(
      table(
        ['system', ...LEVELS.map((v) => `fastest at recall ≥ ${v.toFixed(2)}`)],
        curves.map((c) => [c.system, ...LEVELS.map((v) => {
          const p = fastestAt(c.points, v);
          return p ? `${fmt(p[1].p50)} ms (${p[0]}, R ${p[1].recall10!.toFixed(3)})` : 'not reached';
        })]),
      ),
    );
    out.push('');
    const ours = curves.find((c) => c.system === 'ours');
    const ratios = curves.filter((c) => c !== ours).map((c) => `${c.system}: ${LEVELS.map((v) => {
      const a = ours && fastestAt(ours.points, v);
      const b = fastestAt(c.points, v);
      return `${v.toFixed(2)} ${a && b ? `${(b[1].p50 / a[1].p50).toFixed(2)}×` : '–'}`;
    }).join(', ')}`);
    out.push(`Their p50 ÷ ours at equal recall (> 1× = we are faster): ${ratios.join('; ')}.`);
    out.push('');
  }
  return out;
}

/** The first query of each mode's warm-up pass (every mode is then timed warm). */
function formatFirstQueries(sizes: SizeResult[]): string[] {
  const rows = ROWS.filter((row) => sizes.some((s) => {
    const l = row.pick(s)?.latency[row.key];
    return isLat(l) && l.firstMs !== undefined;
  })).map((row) => [`${row.system} ${row.key}`, ...sizes.map((s) => {
    const l = row.pick(s)?.latency[row.key];
    return isLat(l) ? fmt(l.firstMs) : '–';
  })]);
  if (rows.length === 0) return [];
  return [
    '### First query of each mode (cold cost, ms), in the order measured',
    '',
    table(['system / mode', ...sizes.map((s) => `${sizeName(s.size)} chunks`)], rows),
    '',
    "Each mode runs its query set once untimed before the timed pass, so the latencies above are warm; this is the first query of that untimed pass. Ours `sparse` comes first after the index is built and pays the lazy parts of the view (posting lists decoded on first use); the modes after it find them built.",
    '',
  ];
}

export function formatReport(r: BenchResult, meta: { date: string; machine: string; corpus: string; wallS: number; idb?: string }): string {
  const out: string[] = [];
  const c = r.config;
  out.push(`Date: ${meta.date}  `);
  out.push(`Machine: ${meta.machine}  `);
  out.push(`Browser: ${r.userAgent} (headless, hardwareConcurrency ${r.hardwareConcurrency})  `);
  out.push(`Corpus: ${meta.corpus}  `);
  out.push(
    `Queries: ${c.queries} timed per system and size (${c.reducedQueries} at ≥ ${sizeName(c.reducedAt)}), warm: each mode runs its query set once untimed first (its first query is reported apart, as the cold cost); k = ${c.k}; one query at a time.  `,
  );
  out.push(`Storage: IndexedDB on Chromium's ${meta.idb ?? 'leveldb'} backend, commit durability '${c.durability ?? 'default'}', witness ${c.witness === false ? 'off' : 'on'} (docs/durability.md).  `);
  out.push(`Run: ${meta.wallS.toFixed(0)} s wall in total.`);
  out.push('');

  out.push('### Query latency, ms (p50 / p95), measured inside the bench worker');
  out.push('');
  const sizes = r.sizes;
  const latRows = ROWS.filter((row) => sizes.some((s) => row.pick(s)?.latency[row.key] !== undefined)).map((row) => [
    `${row.system} ${row.key}`,
    ...sizes.map((s) => latCell(row.pick(s)?.latency[row.key])),
  ]);
  out.push(table(['system / mode', ...sizes.map((s) => `${sizeName(s.size)} chunks`)], latRows));
  out.push('');
  const failures = ROWS.flatMap((row) =>
    sizes.flatMap((s) => {
      const l = row.pick(s)?.latency[row.key];
      return isLat(l) && l.failed ? [`${row.system} ${row.key} at ${sizeName(s.size)}: ${l.error}`] : [];
    }),
  );
  if (failures.length) {
    out.push(
      `¹ Failed queries are excluded from that cell's percentiles. ${failures.join('; ')}. ` +
        "(Orama's hybrid search min-max normalises full-text scores with `Math.max.apply` over every full-text match; a query matching most of the corpus — Orama keeps stopwords such as 'the' — overflows the worker's stack. Those are its most expensive queries, so the cell flatters Orama.)",
    );
    out.push('');
  }

  out.push(...formatFirstQueries(sizes));
  out.push(...formatFrontier(sizes));

  out.push('### Ratios (their latency ÷ ours; > 1× means we are faster)');
  out.push('');
  const pairs: [string, (s: SizeResult) => [Latency | string | undefined, Latency | string | undefined]][] = [
    ['ours sparse vs MiniSearch lexical', (s) => [s.engine.latency['sparse'], s.minisearch?.latency['lexical']]],
    ['ours sparse vs Orama lexical', (s) => [s.engine.latency['sparse'], s.orama?.latency['lexical']]],
    ['ours hybrid vs Orama hybrid', (s) => [s.engine.latency['hybrid'], s.orama?.latency['hybrid']]],
    ['ours dense vs Orama vector search', (s) => [s.engine.latency['dense'], s.orama?.latency['dense']]],
    ['ours dense vs edgevec (HNSW)', (s) => [s.engine.latency['dense'], s.edgevec?.latency['dense']]],
    ['ours dense vs EntityDB', (s) => [s.engine.latency['dense'], s.entitydb?.latency['dense']]],
    ['ours hybrid vs edgevec dense (the fastest peer)', (s) => [s.engine.latency['hybrid'], s.edgevec?.latency['dense']]],
  ];
  out.push(
    table(
      ['comparison', ...sizes.map((s) => `${sizeName(s.size)} p50`), ...sizes.map((s) => `${sizeName(s.size)} p95`)],
      pairs.map(([name, f]) => [
        name,
        ...sizes.map((s) => ratio(...f(s), 'p50')),
        ...sizes.map((s) => ratio(...f(s), 'p95')),
      ]),
    ),
  );
  out.push('');

  out.push('### Ingest and memory');
  out.push('');
  const ingRows: string[][] = [];
  for (const s of sizes) {
    const sys: [string, SystemAtSize | undefined][] = [
      ['ours (IndexedDB)', s.engine],
      ['MiniSearch (memory)', s.minisearch],
      ['Orama (memory)', s.orama],
      ['edgevec HNSW (memory)', s.edgevec],
      ['EntityDB (IndexedDB)', s.entitydb],
    ];
    for (const [name, x] of sys) {
      if (!x) continue;
      const ours = s.engine.ingest?.perSec;
      ingRows.push([
        sizeName(s.size),
        name,
        x.ingest ? `${int(x.ingest.chunks)} in ${(x.ingest.ms / 1000).toFixed(2)} s` : '–',
        int(x.ingest?.perSec),
        x === s.engine ? '1.00×' : ours && x.ingest?.perSec ? `${(ours / x.ingest.perSec).toFixed(2)}×` : '–',
        x.idbBytesPerChunk !== undefined ? int(x.idbBytesPerChunk) : '–',
        x.heapBytesPerChunk !== undefined ? int(x.heapBytesPerChunk) : '–',
      ]);
    }
  }
  out.push(
    table(['size', 'system', 'ingested', 'chunks/s', 'ours ÷ theirs (throughput)', 'IndexedDB B/chunk', 'JS heap B/chunk'], ingRows),
  );
  out.push('');
  out.push(
    "Ours ingests the chunks added at that step (the index grows 1k → 10k → 100k in one database) and commits each batch to IndexedDB; MiniSearch and Orama are rebuilt from scratch in memory at each size and persist nothing.",
  );
  out.push('');

  const scale = sizes.filter((s) => s.cold);
  if (scale.length) {
    out.push('### Cold start at scale (a fresh bench worker on the scale database, synthetic query vector)');
    out.push('');
    out.push(
      table(
        ['size', 'open store', 'Engine.open', '… of which IndexStore.load', 'first sparse retrieve', 'first dense retrieve', 'new Worker → first sparse answer', 'new Worker → first dense answer'],
        scale.map((s) => {
          const x = s.cold!;
          return [sizeName(s.size), fmt(x.openStoreMs, 1), fmt(x.loadMs, 1), fmt(x.storeLoadMs, 1), fmt(x.firstSparseMs, 1), fmt(x.firstDenseMs, 1), fmt(x.toFirstSparseMs, 1), fmt(x.toFirstDenseMs, 1)];
        }),
      ),
    );
    out.push('');
  }

  if (r.cold) {
    const runs = r.cold.runs;
    const rest = runs.slice(1).map((x) => x.totalMs).sort((a, b) => a - b);
    const med = rest.length ? rest[Math.floor((rest.length - 1) / 2)] : NaN;
    out.push(`### Cold start (persisted ${sizeName(r.cold.size)}-document index)`);
    out.push('');
    out.push(
      table(
        ['run', 'new Worker → initialize answered', 'first retrieve', 'total to first answer', 'hits'],
        runs.map((x, i) => [String(i + 1), fmt(x.initializeMs, 1), fmt(x.firstRetrieveMs, 1), fmt(x.totalMs, 1), String(x.hits)]),
      ),
    );
    out.push('');
    out.push(`First run ${fmt(runs[0]?.totalMs, 1)} ms (script fetched and compiled for the first time); median of the later runs ${fmt(med, 1)} ms.`);
    if (r.cold.hybrid) {
      const h = r.cold.hybrid;
      out.push(
        h.error
          ? `First query in hybrid mode from a fresh worker: failed (${h.error}).`
          : `First query in hybrid mode from a fresh worker (waits for the app worker's model to load): ${fmt(h.totalMs, 1)} ms (${h.hits} hits).`,
      );
    }
    if (r.cold.inWorker.length) {
      const w = r.cold.inWorker;
      const medOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
      out.push('');
      out.push('Engine only (a fresh bench worker, no model): `new Worker` → store open → `Engine.open` → first sparse retrieve:');
      out.push('');
      out.push(
        table(
          ['run', 'open store', 'Engine.open (load)', '… of which IndexStore.load', 'first retrieve', 'total from the page'],
          w.map((x, i) => [String(i + 1), fmt(x.openStoreMs, 1), fmt(x.loadMs, 1), fmt(x.storeLoadMs, 1), fmt(x.firstQueryMs, 1), fmt(x.totalMs, 1)]),
        ),
      );
      out.push('');
      out.push(`Median total ${fmt(medOf(w.map((x) => x.totalMs)), 1)} ms, of which Engine.open ${fmt(medOf(w.map((x) => x.loadMs)), 1)} ms.`);
    }
    out.push('');
  }

  if (r.rcp) {
    const x = r.rcp;
    out.push(`### RCP round trip (sparse, k = ${c.k}, no text, ${sizeName(x.size)} chunks)`);
    out.push('');
    out.push(
      table(
        ['path', 'p50 ms', 'p95 ms', 'mean ms'],
        [
          ['page → RcpClient → MessagePort → worker session → engine → back', fmt(x.rcp.p50, 3), fmt(x.rcp.p95, 3), fmt(x.rcp.mean, 3)],
          ['server-reported usage.latencyMs (same calls)', fmt(x.serverReported.p50, 3), fmt(x.serverReported.p95, 3), fmt(x.serverReported.mean, 3)],
          ['Engine.retrieve called inside a worker', fmt(x.inWorker.p50, 3), fmt(x.inWorker.p95, 3), fmt(x.inWorker.mean, 3)],
          ['RCP overhead (round trip − in-worker; tails are not subtractable)', fmt(x.rcp.p50 - x.inWorker.p50, 3), '–', fmt(x.rcp.mean - x.inWorker.mean, 3)],
        ],
      ),
    );
    out.push('');
  }

  out.push('### Embedder');
  out.push('');
  const e = r.embedder;
  out.push(
    e.available
      ? `${e.identity} (${e.dimension}-d) on ${e.device}: loaded in ${fmt(e.loadMs, 0)} ms; ${int(e.embedPerSec)} passages/s; ${fmt(e.queryEmbedMs, 3)} ms per query. ` +
          'Synthetic clustered vectors (bench/vectors.ts), generated once and given to our engine (through its Embedder at add time) and to every peer; ingest above therefore excludes embedding.'
      : `n/a (no embedder): ${e.reason}`,
  );
  out.push('');

  const notes = sizes.flatMap((s) => s.notes.map((n) => `- ${sizeName(s.size)}: ${n}`));
  if (notes.length) {
    out.push('### Notes');
    out.push('');
    out.push(...notes);
    out.push('');
  }
  out.push(`Heap: ${r.heapMethod}. Storage: ${r.storageMethod}.`);
  return out.join('\n');
}

/** Target checks (benchmarks, not tests): one line each. */
export function formatTargets(r: BenchResult): string {
  const lines: string[] = [];
  const check = (ok: boolean | undefined, text: string) => lines.push(`- [${ok === undefined ? '?' : ok ? 'x' : ' '}] ${text}`);
  for (const s of r.sizes.filter((x) => x.size >= 100_000)) {
    const at = sizeName(s.size);
    const hy = s.engine.latency['hybrid'];
    const de = s.engine.latency['dense'];
    const limit = s.size >= 1_000_000 ? 50 : 10;
    check(isLat(hy) ? hy.p50 <= limit : undefined, `${at}: hybrid p50 ≤ ${limit} ms: ${isLat(hy) ? fmt(hy.p50) : 'n/a'} ms`);
    if (s.size < 1_000_000) check(isLat(hy) ? hy.p95 <= 25 : undefined, `${at}: hybrid p95 ≤ 25 ms: ${isLat(hy) ? fmt(hy.p95) : 'n/a'} ms`);
    check(isLat(de) && de.recall10 !== undefined ? de.recall10 >= 0.95 : undefined, `${at}: dense recall@10 ≥ 0.95: ${isLat(de) ? fmt(de.recall10, 3) : 'n/a'}`);
    const peers = [s.orama, s.edgevec, s.entitydb].flatMap((x) => Object.entries(x?.latency ?? {}).filter(([k]) => k.startsWith('dense')).map(([, l]) => l)).filter(
      (l): l is Latency => isLat(l) && l.n > 0 && (l.recall10 ?? 0) >= 0.95,
    );
    const fastest = peers.sort((a, b) => a.p50 - b.p50)[0];
    if (s.size < 1_000_000) {
      check(
        isLat(hy) && fastest ? fastest.p50 / hy.p50 >= 2 : undefined,
        `${at}: hybrid ≥ 2× faster than the fastest peer at recall@10 ≥ 0.95 (p50): ${fastest && isLat(hy) ? `${(fastest.p50 / hy.p50).toFixed(2)}×` : 'n/a'}`,
      );
    }
    if (s.size >= 1_000_000) {
      check(s.engine.heapBytesPerChunk !== undefined ? s.engine.heapBytesPerChunk <= 600 : undefined, `${at}: JS heap ≤ 600 B/chunk: ${int(s.engine.heapBytesPerChunk)} B`);
      check(s.cold ? s.cold.toFirstSparseMs <= 1000 : undefined, `${at}: cold start to first sparse answer ≤ 1 s: ${fmt(s.cold?.toFirstSparseMs, 0)} ms`);
    }
  }
  return lines.join('\n');
}

const MODE: Record<string, string> = { lexical: 'sparse', sparse: 'sparse', dense: 'dense', hybrid: 'hybrid' };

/** The machine-readable summary `--json` writes: one object per size (the largest first), rows per system and mode. */
export function summarizeJson(r: BenchResult): Record<string, unknown> {
  const perSize = [...r.sizes].reverse().map((s) => {
    const rows: Record<string, unknown>[] = [];
    const add = (system: string, x: SystemAtSize | undefined) => {
      if (!x) return;
      for (const [key, l] of Object.entries(x.latency)) {
        if (!isLat(l)) continue;
        const mode = MODE[key] ?? key.split(/[ ,(]/)[0];
        rows.push({ system, mode, variant: MODE[key] ? undefined : key, p50: l.p50, p95: l.p95, recall10: l.recall10 ?? (mode === 'sparse' ? null : undefined), n: l.n, failed: l.failed });
      }
    };
    add('ours', s.engine);
    add('minisearch', s.minisearch);
    add('orama', s.orama);
    add('edgevec', s.edgevec);
    add('entitydb', s.entitydb);
    const ingest = (x: SystemAtSize | undefined) => x?.ingest && { chunksPerSec: x.ingest.perSec, chunks: x.ingest.chunks, ms: x.ingest.ms };
    return {
      size: s.size,
      dimension: r.embedder.dimension,
      rows,
      ingest: { ours: ingest(s.engine), orama: ingest(s.orama), edgevec: ingest(s.edgevec), entitydb: ingest(s.entitydb), minisearch: ingest(s.minisearch) },
      heapBytesPerChunk: { ours: s.engine.heapBytesPerChunk, orama: s.orama?.heapBytesPerChunk, edgevec: s.edgevec?.heapBytesPerChunk, entitydb: s.entitydb?.heapBytesPerChunk },
      idbBytesPerChunk: s.engine.idbBytesPerChunk,
      coldStart: s.cold && { firstSparseMs: s.cold.toFirstSparseMs, firstDenseMs: s.cold.toFirstDenseMs, engineOpenMs: s.cold.loadMs },
      notes: s.notes,
    };
  });
  return { ...perSize[0], sizes: perSize.slice(1), embedder: r.embedder, userAgent: r.userAgent, config: r.config, raw: r };
}
