/**
 * A writable index (§7.10, §7.11): positional ids, upsert by id, idempotent re-adds and deletes.
 * The run adds four probe documents (ids `rcp-conformance-probe:*`) before the retrieve checks
 * and deletes them at the end; `--no-write` (or the page's switch) turns all of this off.
 */
import { isObject } from '../../protocol/json.ts';
import type { Probe } from '../probe.ts';
import type { CheckDef, Verdict } from '../types.ts';
import { all, described, fail, pass, skip } from '../verdicts.ts';
import { docOf, hitsOf, PROBE_DOCS, PROBE_PREFIX, PROBE_QUERY } from './common.ts';

type Check = CheckDef<Probe>;

function cannotWrite(p: Probe): Verdict | undefined {
  if (!p.caps.index) return skip('index not advertised');
  if (p.caps.index.writable !== true) return skip('index not writable');
  if (!p.state.options.write) return skip('writes turned off for this run');
  return undefined;
}

/** Keyword search when the server has it, so a word decides what is found. */
const sparseIfAny = (p: Probe): Record<string, unknown> => (p.caps.retrieve?.modes?.includes('sparse') ? { mode: 'sparse' } : {});

async function probeHits(p: Probe, query: string): Promise<Record<string, unknown>[] | Verdict> {
  const a = await p.call('retrieve', { query, k: 20, includeText: true, ...sparseIfAny(p) }, { retryUnavailable: true });
  return hitsOf(a.result) ?? fail(`retrieve "${query}": ${described(a)}`);
}

const isVerdict = (v: unknown): v is Verdict => isObject(v) && typeof v.status === 'string';

export const addProbeDocuments: Check[] = [
  {
    id: 'index-add-ids',
    level: 'L2',
    section: '7.10',
    sentence: '`ids` MUST be returned in the same order as the input `documents`, one entry per input document, so a client can correlate them positionally.',
    async run(p) {
      const no = cannotWrite(p);
      if (no) return no;
      const a = await p.call('index/add', { documents: PROBE_DOCS.map((d) => ({ ...d, meta: { 'x-conformance': true } })) }, { retryUnavailable: true });
      const ids = a.result?.ids;
      if (!Array.isArray(ids)) return fail(`index/add of 4 probe documents: ${described(a)}`);
      p.state.written = PROBE_DOCS.map((d) => d.id);
      const want = PROBE_DOCS.map((d) => d.id);
      return JSON.stringify(ids) === JSON.stringify(want) ? pass('4 documents, 4 ids in order') : fail(`ids ${JSON.stringify(ids)} for documents ${JSON.stringify(want)}`);
    },
  },
];

export const writeChecks: Check[] = [
  {
    id: 'index-add-upsert',
    level: 'L2',
    section: '7.10',
    sentence: 'A document carrying an explicit `id` is an **upsert** — re-adding the same `id` MUST replace the prior document and MUST NOT create a duplicate or fail. A server that cannot upsert MUST reject the duplicate with `-32016` (`Conflict`).',
    async run(p) {
      const no = cannotWrite(p) ?? (p.state.written.length ? undefined : skip('the probe documents were not written'));
      if (no) return no;
      const id = PROBE_DOCS[1].id;
      const a = await p.call('index/add', { documents: [{ id, text: 'A quokka and a platypus replaced the wombat in the Zephyrine meadow.' }] });
      if (a.error?.code === -32016) return pass('the duplicate id is rejected with -32016 (no upsert)');
      if (!a.result) return fail(`re-adding ${id}: ${described(a)}`);
      const hits = await probeHits(p, PROBE_QUERY);
      if (isVerdict(hits)) return hits;
      const mine = hits.filter((h) => docOf(h) === id);
      if (mine.length !== 1) return fail(`after re-adding ${id}, "${PROBE_QUERY}" returns ${mine.length} hits from it (one expected)`);
      const text = mine[0].text;
      if (typeof text === 'string' && !text.includes('platypus')) return fail(`${id} still holds its old text: ${text.slice(0, 120)}`);
      return pass(`${id} replaced: one hit${typeof text === 'string' ? ', with the new text' : ''}`);
    },
  },
  {
    id: 'index-add-idempotent',
    level: 'L2',
    section: '7.10',
    sentence: 'Servers MUST make repeated `index/add` of identical `{id, text}` pairs observationally identical to a single one.',
    async run(p) {
      const no = cannotWrite(p) ?? (p.state.written.length ? undefined : skip('the probe documents were not written'));
      if (no) return no;
      const before = await probeHits(p, PROBE_QUERY);
      if (isVerdict(before)) return before;
      const doc = PROBE_DOCS[0];
      const a = await p.call('index/add', { documents: [{ id: doc.id, text: doc.text, meta: { 'x-conformance': true } }] });
      if (!a.result) return fail(`re-adding ${doc.id} unchanged: ${described(a)}`);
      const after = await probeHits(p, PROBE_QUERY);
      if (isVerdict(after)) return after;
      const key = (hs: Record<string, unknown>[]) => JSON.stringify(hs.filter((h) => docOf(h).startsWith(PROBE_PREFIX)).map((h) => [h.id, h.score]));
      return key(before) === key(after) ? pass('the same probe hits and scores before and after re-adding an identical document') : fail(`probe hits changed: ${key(before).slice(0, 150)} → ${key(after).slice(0, 150)}`);
    },
  },
  {
    id: 'index-delete-idempotent',
    level: 'L2',
    section: '7.11',
    sentence: 'Deletion is idempotent: deleting an `id` that is absent (or already deleted) MUST NOT be an error. `deleted` counts only the documents actually removed by this call, so a repeat of the same request returns `0`.',
    async run(p) {
      const no = cannotWrite(p) ?? (p.state.written.length ? undefined : skip('the probe documents were not written'));
      if (no) return no;
      const id = PROBE_DOCS[3].id;
      const first = await p.call('index/delete', { ids: [id] });
      const again = await p.call('index/delete', { ids: [id] });
      const never = await p.call('index/delete', { ids: [`${PROBE_PREFIX}never-added`] });
      const out: Verdict[] = [
        first.result?.deleted === 1 ? pass('deleted 1') : fail(`deleting ${id}: expected deleted 1, got ${described(first)}`),
        again.result?.deleted === 0 ? pass('repeat: deleted 0') : fail(`deleting ${id} again: expected deleted 0, got ${described(again)}`),
        never.result?.deleted === 0 ? pass('absent id: deleted 0') : fail(`deleting an id never added: expected deleted 0, got ${described(never)}`),
      ];
      const hits = await probeHits(p, 'xylograph lighthouses');
      if (isVerdict(hits)) out.push(hits);
      else out.push(hits.some((h) => docOf(h) === id) ? fail(`${id} is still found after its deletion`) : pass('no longer found'));
      return all(out);
    },
  },
];

/** Deletes what the run wrote; returns a note for the report. */
export async function removeProbeDocuments(p: Probe): Promise<string | undefined> {
  if (!p.state.written.length) return undefined;
  const a = await p.call('index/delete', { ids: p.state.written });
  p.state.written = [];
  return a.result ? `probe documents removed (${String(a.result.deleted)} deleted)` : `could not remove the probe documents: ${described(a)}`;
}

