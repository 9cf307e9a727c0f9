/**
 * A seeded RCP protocol fuzzer: valid and invalid frames for every advertised method, batches,
 * cancels, deep nesting, huge and odd ids, lone surrogates, garbage. Each frame carries what its
 * answer must look like; `checkAnswers` then proves every request was answered exactly once,
 * with the code its frame deserves, in a schema-valid frame, and that no notification was answered.
 * Used by e2e/bridge-fuzz.spec.ts (bounded, CI) and scripts/soak.ts (long).
 */

/** Deterministic PRNG (mulberry32): the same seed replays the same frames. */
import { rng as prng } from '../../src/util/prng.ts';
export { prng };

/** What a request may be answered with: a result, or an error with one of `codes`. */
interface Expect {
  result: boolean;
  codes: number[];
}

/** One member of a frame the fuzzer sent. */
export interface Sent {
  /** The id key (JSON text) of a request with a valid id; undefined for the rest. */
  key?: string;
  method?: string;
  /** Owed no answer at all (a notification). */
  silent?: boolean;
  /** Owed exactly one id-null -32600/-32700. */
  nullAnswer?: boolean;
  expect?: Expect;
}

export interface Frame {
  text: string;
  batch: boolean;
  members: Sent[];
}


const ok = (codes: number[] = []): Expect => ({ result: true, codes });
const fails = (...codes: number[]): Expect => ({ result: false, codes });

type Gen = (r: Rng) => { params: unknown; expect: Expect };

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Words with now and then a lone surrogate, an emoji, a NUL or RTL text. */
  text(): string {
    const words = ['whale', 'ishmael', 'union', 'state', 'sea', 'ship', 'congress', 'liberty', 'ahab', 'tax'];
    const odd = ['\ud800', '\udfff', '😀', '\u0000', 'שלום', 'ｗｈａｌｅ', '\u202e', 'e\u0301', '<script>', '"\\'];
    return Array.from({ length: 1 + this.int(6) }, () => (this.chance(0.15) ? this.pick(odd) : this.pick(words))).join(' ');
  }
}

/** A placeholder for `depth` nested objects, spliced in as text by `wire` (JSON.stringify would overflow the stack). */
const nest = (depth: number, _leaf: 1): unknown => ({ __nest: depth });
const wire = (value: unknown): string =>
  JSON.stringify(value).replace(/\{"__nest":(\d+)\}/g, (_, d: string) => `${'{"a":'.repeat(Number(d))}1${'}'.repeat(Number(d))}`);

/** Params generators per method: valid ones first, then invalid ones with their expected codes. */
const GENERATORS: Record<string, Gen[]> = {
  ping: [
    (r) => ({ params: r.chance(0.5) ? {} : { nonce: r.chance(0.5) ? r.int(1e6) : r.text() }, expect: ok() }),
    (r) => ({ params: { nonce: r.pick([[], false, {}, true]) }, expect: fails(-32602) }),
    // §4.6: a JSON null is an absent member.
    () => ({ params: { nonce: null }, expect: ok() }),
  ],
  info: [() => ({ params: {}, expect: ok() })],
  retrieve: [
    (r) => ({ params: { query: r.text(), k: 1 + r.int(20), mode: r.pick(['sparse', 'dense', 'hybrid']) }, expect: ok() }),
    (r) => ({ params: { query: r.text(), k: 5, includeText: true, filter: { field: 'year', op: 'gte', value: 1900 + r.int(100) } }, expect: ok() }),
    (r) => ({ params: { query: r.text(), k: 3, mmr: { lambda: r.next() }, unit: r.pick(['chunk', 'passage', 'document']) }, expect: ok() }),
    (r) => ({ params: { query: r.text(), k: 3, _meta: { progressToken: `p${r.int(1e9)}` } }, expect: ok() }),
    (r) => ({ params: { query: r.pick([42, null, [], {}]), k: 3 }, expect: fails(-32602) }),
    (r) => ({ params: { query: 'x', k: r.pick([-1, 1.5, 'ten', null]) }, expect: ok([-32602]) }),
    () => ({ params: { query: 'x', k: 10, candidateK: 2 }, expect: fails(-32602) }),
    // §7.7/§12: a mode string the server does not offer is -32005 (option mode); a non-string is -32602.
    (r) => ({ params: { query: 'x', k: 3, mode: r.pick(['telepathy', '']) }, expect: fails(-32005) }),
    () => ({ params: { query: 'x', k: 3, mode: 5 }, expect: fails(-32602) }),
    (r) => ({ params: { query: 'x', k: 3, filter: { field: r.pick(['year', 'nosuch']), op: r.pick(['eq', 'regex']), value: r.pick([1, 'x', {}]) } }, expect: ok([-32602, -32005]) }),
    (r) => ({ params: { query: 'x', k: 3, _meta: nest(200 + r.int(5000), 1) }, expect: fails(-32602) }),
  ],
  'index/add': [
    (r) => ({ params: { documents: Array.from({ length: 1 + r.int(4) }, () => ({ id: `f${r.int(300)}`, text: r.text(), meta: { year: 1800 + r.int(220), title: r.text() } })) }, expect: ok() }),
    (r) => ({ params: { documents: [{ text: r.pick([5, null, {}]) }] }, expect: fails(-32602) }),
    () => ({ params: { documents: 'nope' }, expect: fails(-32602) }),
    (r) => ({ params: { documents: [{ id: 'deep', text: 'x', meta: nest(200 + r.int(5000), 1) }] }, expect: fails(-32602) }),
    // §4.6: meta null is absent (stored as {}); a non-object meta is -32602.
    (r) => ({ params: { documents: [{ id: `f${r.int(300)}`, text: r.text(), meta: null }] }, expect: ok() }),
    (r) => ({ params: { documents: [{ id: 'm', text: 'x', meta: r.pick([[], 'x', 5]) }] }, expect: fails(-32602) }),
  ],
  'index/delete': [
    (r) => ({ params: { ids: [`f${r.int(300)}`, `missing${r.int(9)}`] }, expect: ok([-32015]) }),
    (r) => ({ params: { ids: r.pick([5, 'x', [1]]) }, expect: fails(-32602) }),
  ],
  rerank: [
    (r) => ({ params: { query: r.text(), passages: [r.text(), r.text()], method: 'colbert' }, expect: ok() }),
    () => ({ params: { query: 'x', passages: 'nope' }, expect: fails(-32602) }),
  ],
  embed: [
    (r) => ({ params: { inputs: [r.text()], ...(r.chance(0.5) ? { encoding: 'f32-base64' } : {}) }, expect: ok([-32602]) }),
    (r) => ({ params: { inputs: r.pick([5, null, [{}]]) }, expect: fails(-32602) }),
  ],
  'embed/multi': [(r) => ({ params: { inputs: [r.text()] }, expect: ok([-32602]) })],
  'x-inpage/documents': [(r) => ({ params: { offset: r.int(5), limit: 1 + r.int(50) }, expect: ok() }), () => ({ params: { limit: 0 }, expect: fails(-32602) })],
  'x-inpage/document': [(r) => ({ params: { id: `f${r.int(300)}` }, expect: ok([-32015]) }), () => ({ params: {}, expect: fails(-32602) })],
  // Never answered successfully mid-run: only rejected shutdowns (issue 10 defect 3).
  shutdown: [(r) => ({ params: r.pick([[1], 'x', 5]), expect: fails(-32602, -32600) })],
  initialize: [(r) => ({ params: { protocolVersion: r.pick([1, 2, 0, '1']) }, expect: fails(-32600, -32602, -32002) })],
  graph: [
    (r) => ({ params: { op: r.pick(['local', 'neighbors']), query: r.text(), seedIds: [`f${r.int(300)}`], k: 1 + r.int(8) }, expect: ok([-32602, -32015]) }),
    () => ({ params: { query: 'x' }, expect: fails(-32602) }),
  ],
  // Never advertised (no memory store): gated before its params are looked at (§13.2).
  'memory/build': [() => ({ params: { scope: 'x' }, expect: fails(-32003) })],
  'query/transform': [
    (r) => ({ params: { query: r.text(), method: r.pick(['rewrite', 'multi-query']) }, expect: ok([-32602]) }),
    () => ({ params: { query: 'x' }, expect: fails(-32602) }),
    // Needs a generator: never advertised, so -32005 (option method).
    (r) => ({ params: { query: 'x', method: r.pick(['hyde', 'telepathy']) }, expect: fails(-32005) }),
  ],
  'does/not/exist': [() => ({ params: {}, expect: fails(-32004) })],
};

/** Ids: plain counters mostly, odd but valid forms sometimes; each maps to a unique key. */
function idFor(n: number, r: Rng): string | number {
  switch (r.int(8)) {
    case 0:
      return `s${n}-${r.pick(['\ud800', '😀', '', ' ', '\u0000', 'x'.repeat(2000)])}`;
    case 1:
      return -n - 1;
    case 2:
      return n + 0.5;
    case 3:
      return 2 ** 52 + n;
    default:
      return n;
  }
}

/** Generates `count` frames (after the caller's own initialize). */
export function* frames(seed: number, count: number): Generator<Frame> {
  const r = new Rng(seed);
  const methods = Object.keys(GENERATORS);
  let n = 1_000;
  const inFlight: string[] = [];
  const member = (): { value: unknown; sent: Sent } => {
    const roll = r.next();
    if (roll < 0.06) {
      // Invalid ids: answered with id null.
      return { value: { jsonrpc: '2.0', id: r.pick([{}, [], true, null]), method: 'ping' }, sent: { nullAnswer: true } };
    }
    if (roll < 0.1) {
      const value = r.pick([{}, { foo: 'boo' }, { jsonrpc: '2.0', method: 5 }, { jsonrpc: '1.0', method: 'ping' }, { method: 'ping', params: {} }]);
      return { value, sent: { nullAnswer: true } };
    }
    if (roll < 0.16) {
      const target = inFlight.length && r.chance(0.8) ? JSON.parse(r.pick(inFlight)) : r.int(1e6);
      return { value: { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: target, reason: 'fuzz' } }, sent: { silent: true } };
    }
    if (roll < 0.19) return { value: { jsonrpc: '2.0', method: r.pick(methods), params: {} }, sent: { silent: true } };
    const method = r.pick(methods);
    const gen = r.pick(GENERATORS[method]);
    const { params, expect } = gen(r);
    const id = idFor(n++, r);
    const key = JSON.stringify(id);
    inFlight.push(key);
    if (inFlight.length > 50) inFlight.shift();
    return { value: { jsonrpc: '2.0', id, method, params }, sent: { key, method, expect } };
  };
  for (let i = 0; i < count; i++) {
    const roll = r.next();
    if (roll < 0.03) {
      yield { text: r.pick(['{not json', '}{', '[1,', '"\ud800', '\u0000garbage', '[]']), batch: false, members: [{ nullAnswer: true }] };
      continue;
    }
    if (roll < 0.15) {
      const ms = Array.from({ length: 1 + r.int(5) }, member);
      yield { text: wire(ms.map((m) => m.value)), batch: true, members: ms.map((m) => m.sent) };
      continue;
    }
    const m = member();
    yield { text: wire(m.value), batch: false, members: [m.sent] };
  }
}

export interface FuzzReport {
  frames: number;
  requests: number;
  answers: number;
  missing: string[];
  doubled: string[];
  unexpected: string[];
  wrongCodes: string[];
  schemaErrors: string[];
}

/**
 * Checks every line the server wrote against what the frames were owed. `validate` returns schema
 * errors for a frame text; `cancelled` holds keys targeted by a cancel (they may answer -32006).
 */
export function checkAnswers(sent: Frame[], lines: string[], validate: (text: string) => string[]): FuzzReport {
  const report: FuzzReport = { frames: sent.length, requests: 0, answers: 0, missing: [], doubled: [], unexpected: [], wrongCodes: [], schemaErrors: [] };
  const owed = new Map<string, Sent>();
  let nullsOwed = 0;
  for (const f of sent) {
    for (const m of f.members) {
      if (m.key !== undefined) {
        owed.set(m.key, m);
        report.requests++;
      } else if (m.nullAnswer) {
        nullsOwed++;
      }
    }
  }
  const seen = new Map<string, number>();
  let nulls = 0;
  for (const line of lines) {
    const errs = validate(line);
    if (errs.length) report.schemaErrors.push(`${line.slice(0, 200)}: ${errs.slice(0, 3).join('; ')}`);
    const msg: unknown = JSON.parse(line);
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (typeof m !== 'object' || m === null) continue;
      const frame = m as { id?: unknown; method?: string; result?: unknown; error?: { code: number; message?: string } };
      if (frame.method !== undefined) continue; // progress/log notifications
      report.answers++;
      if (frame.id === null) {
        nulls++;
        if (frame.error && ![-32600, -32700].includes(frame.error.code)) report.wrongCodes.push(`id null: ${frame.error.code}`);
        continue;
      }
      const key = JSON.stringify(frame.id);
      const s = owed.get(key);
      if (!s) {
        report.unexpected.push(line.slice(0, 200));
        continue;
      }
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const exp = s.expect!;
      const code = frame.error?.code;
      const fine = code === undefined ? exp.result : exp.codes.includes(code) || code === -32006 || code === -32014;
      if (!fine) {
        report.wrongCodes.push(`${s.method} ${key.slice(0, 40)}: ${code === undefined ? 'result' : code} (expected ${exp.result ? 'result or ' : ''}${exp.codes.join('/')}) ${String(frame.error?.message ?? '').slice(0, 120)}`);
      }
    }
  }
  for (const [key, s] of owed) {
    const count = seen.get(key) ?? 0;
    if (count === 0) report.missing.push(`${s.method} ${key.slice(0, 60)}`);
    if (count > 1) report.doubled.push(`${s.method} ${key.slice(0, 60)} ×${count}`);
  }
  if (nulls < nullsOwed) report.missing.push(`${nullsOwed - nulls} id-null answers`);
  if (nulls > nullsOwed) report.doubled.push(`${nulls - nullsOwed} id-null answers too many`);
  return report;
}
