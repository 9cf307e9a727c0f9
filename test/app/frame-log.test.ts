/** The inspector's frame log: classification, latency matching and bounded memory. */
import { describe, expect, it } from 'vitest';
import { FULL_FRAME_BYTES, FULL_FRAMES, FrameLog, HEAD_CHARS, MAX_FRAME_BYTES, MAX_FRAMES, PREVIEW_CHARS, toNdjson } from '../../src/app/frame-log.ts';

describe('FrameLog', () => {
  it('classifies frames and matches a response to its request', () => {
    const log = new FrameLog();
    log.add('out', '{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}');
    log.add('in', '{"jsonrpc":"2.0","method":"notifications/log","params":{}}');
    const res = log.add('in', '{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(log.records.map((r) => r.kind)).toEqual(['request', 'notification', 'response']);
    expect(res.method).toBe('ping');
    expect(res.latencyMs).toBeGreaterThanOrEqual(0);
    expect(log.add('in', 'not json').kind).toBe('invalid');
  });

  it('keeps at most MAX_FRAME_BYTES of frames, dropping the oldest, but always the newest', () => {
    const log = new FrameLog();
    const big = `{"jsonrpc":"2.0","method":"x","params":{"t":"${'a'.repeat(1024 * 1024)}"}}`;
    for (let i = 0; i < 40; i++) log.add('out', big);
    const kept = log.records.reduce((n, r) => n + r.bytes, 0);
    expect(kept).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(log.records.length).toBeLessThan(40);
    expect(log.records.at(-1)!.seq).toBe(40);
    expect(log.oldestSeq).toBe(log.records[0].seq);
    const huge = `"${'b'.repeat(MAX_FRAME_BYTES + 10)}"`;
    log.add('in', huge);
    expect(log.records).toHaveLength(1);
    expect(log.records[0].text).toBe(huge);
  });

  it('keeps at most MAX_FRAMES frames', () => {
    const log = new FrameLog();
    for (let i = 0; i < MAX_FRAMES + 7; i++) log.add('out', '{"jsonrpc":"2.0","method":"n"}');
    expect(log.records).toHaveLength(MAX_FRAMES);
    expect(log.oldestSeq).toBe(8);
    log.clear();
    expect(log.records).toHaveLength(0);
  });

  it('folds older frames to a preview and reads their full text back on demand', async () => {
    const log = new FrameLog();
    const frame = (i: number) => `{"jsonrpc":"2.0","id":${i},"method":"retrieve","params":{"query":"${'q'.repeat(1000)}"}}`;
    for (let i = 0; i < FULL_FRAMES + 50; i++) log.add('out', frame(i));
    const inHeap = log.records.filter((r) => r.text !== undefined);
    expect(inHeap).toHaveLength(FULL_FRAMES);
    expect(inHeap[0].seq).toBe(51); // the newest keep their text
    const old = log.records[0];
    expect(old.text).toBeUndefined();
    expect(old.preview).toHaveLength(PREVIEW_CHARS);
    expect(await log.fullText(old)).toBe(frame(0));
    expect(toNdjson(await Promise.all(log.records.slice(0, 2).map((r) => log.fullText(r))))).toBe(`${frame(0)}\n${frame(1)}\n`);
  });

  it('keeps at most FULL_FRAME_BYTES of text in the heap, always the newest frame', async () => {
    const log = new FrameLog();
    const big = `"${'c'.repeat(1024 * 1024)}"`;
    for (let i = 0; i < 12; i++) log.add('in', big);
    const heap = log.records.filter((r) => r.text !== undefined).reduce((n, r) => n + r.bytes, 0);
    expect(heap).toBeLessThanOrEqual(FULL_FRAME_BYTES);
    expect(log.records.at(-1)!.text).toBe(big);
    expect(log.records).toHaveLength(12); // folded, not dropped: the overall budget is larger
    expect(await log.fullText(log.records[0])).toBe(big);
  });

  it('labels large frames from their head exactly as a full parse would', () => {
    const log = new FrameLog();
    const pad = 'x'.repeat(40_000);
    const req = log.add('out', `{"jsonrpc":"2.0","id":7,"method":"index/add","params":{"documents":[{"text":"${pad}"}]}}`);
    expect(req).toMatchObject({ kind: 'request', id: 7, method: 'index/add' });
    const res = log.add('in', `{"jsonrpc":"2.0","id":7,"result":{"t":"${pad}"}}`);
    expect(res).toMatchObject({ kind: 'response', id: 7, method: 'index/add' });
    expect(log.add('in', `{"jsonrpc":"2.0","id":"a\\"b","error":{"code":-32602,"message":"${pad}"}}`)).toMatchObject({ kind: 'error', id: 'a"b' });
    expect(log.add('in', `{"jsonrpc":"2.0","method":"notifications/progress","params":{"t":"${pad}"}}`)).toMatchObject({ kind: 'notification', method: 'notifications/progress' });
    // Another key order: parsed whole.
    expect(log.add('in', `{"id":3,"jsonrpc":"2.0","result":{"t":"${pad}"}}`)).toMatchObject({ kind: 'response', id: 3 });
    expect(log.add('in', `[{"jsonrpc":"2.0","id":1,"result":{}},{"t":"${pad}"}]`).kind).toBe('batch');
  });

  it('takes a large frame from another worker as its head and a Blob, reads it back whole, and matches its answer', async () => {
    const log = new FrameLog();
    const text = `{"jsonrpc":"2.0","id":4,"method":"index/add","params":{"documents":[{"text":"${'é'.repeat(30_000)}"}]}}`;
    const bytes = new TextEncoder().encode(text).length;
    const req = log.addLarge('out', { head: text.slice(0, HEAD_CHARS), bytes, body: new Blob([text]) }, 'sample');
    expect(req).toMatchObject({ kind: 'request', id: 4, method: 'index/add', bytes, session: 'sample' });
    expect(req.text).toBeUndefined();
    expect(req.preview).toBe(text.slice(0, PREVIEW_CHARS));
    expect(await log.fullText(req)).toBe(text);
    const res = log.add('in', '{"jsonrpc":"2.0","id":4,"result":{"added":1}}', 'sample');
    expect(res).toMatchObject({ kind: 'response', method: 'index/add' });
    // Same id on another session: not its answer.
    expect(log.add('in', '{"jsonrpc":"2.0","id":4,"result":{}}', 'import').method).toBeUndefined();
    // It is not counted as text held in the heap: 200 of them fold nothing else away.
    const small = log.add('out', '{"jsonrpc":"2.0","id":9,"method":"ping"}');
    for (let i = 0; i < 20; i++) log.addLarge('out', { head: text.slice(0, HEAD_CHARS), bytes, body: new Blob([text]) }, 'sample');
    expect(small.text).toBeDefined();
  });
});
