import { parseHTML } from 'linkedom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mountEngineWatch, SILENCE_TO_FAULT_MS } from '../../src/app/engine-watch.ts';

/** The page's fault box in a DOM of its own (the watch reads `document`). */
function page(): HTMLElement {
  const { document } = parseHTML('<!doctype html><html><body><div id="engine-fault" hidden></div></body></html>');
  vi.stubGlobal('document', document);
  return document.getElementById('engine-fault') as HTMLElement;
}

describe('engine watch', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('one status call that is never answered is enough to say the engine stopped (the page may be awaiting it)', async () => {
    const box = page();
    const watch = mountEngineWatch();
    void watch.status(() => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(SILENCE_TO_FAULT_MS - 1_000);
    expect(box.hidden).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(box.hidden).toBe(false);
    expect(box.textContent).toContain('The engine stopped responding');
  });

  it('a slow but answered call says nothing, and an answer after a fault clears it', async () => {
    const box = page();
    const watch = mountEngineWatch();
    const slow = watch.status(() => new Promise((ok) => setTimeout(ok, 8_000)));
    await vi.advanceTimersByTimeAsync(60_000);
    await slow;
    expect(box.hidden).toBe(true);
    let answer: (v: unknown) => void = () => undefined;
    void watch.status(() => new Promise((ok) => (answer = ok)));
    await vi.advanceTimersByTimeAsync(SILENCE_TO_FAULT_MS + 1_000);
    expect(box.hidden).toBe(false);
    answer(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(box.hidden).toBe(true);
  });

  it('a call that fails (the worker answered with an error) is not silence', async () => {
    const box = page();
    const watch = mountEngineWatch();
    await watch.status(() => Promise.reject(new Error('index closed'))).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(box.hidden).toBe(true);
  });

  it('while beats come the engine is said to be busy, never crashed; once they stop too it is said to have stopped', async () => {
    const box = page();
    const watch = mountEngineWatch();
    const port = {} as MessagePort;
    watch.listen(port);
    const beat = () => port.onmessage?.({ data: { type: 'beat', seq: 0, lagMs: 900, steps: [] } } as unknown as MessageEvent);
    const beating = setInterval(beat, 1_000);
    void watch.status(() => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(SILENCE_TO_FAULT_MS * 3);
    expect(box.hidden).toBe(false);
    expect(box.dataset.state).toBe('busy');
    expect(box.textContent).toContain('The engine is busy');
    expect(box.textContent).not.toMatch(/crashed|stopped responding/);
    clearInterval(beating);
    await vi.advanceTimersByTimeAsync(SILENCE_TO_FAULT_MS - 2_000);
    expect(box.textContent).toContain('The engine is busy');
    await vi.advanceTimersByTimeAsync(4_000);
    expect(box.dataset.state).toBe('down');
    expect(box.textContent).toContain('The engine stopped responding');
    expect(box.textContent).toMatch(/no sign of life for 2\d s/);
    // A late beat: it was busy after all.
    beat();
    expect(box.textContent).toContain('The engine is busy');
  });

  it('a worker whose beats stop with its answers (terminated, crashed) is never said to be busy: it is said to have stopped', async () => {
    const box = page();
    const watch = mountEngineWatch();
    const port = {} as MessagePort;
    watch.listen(port); // beats came until now, then none
    await vi.advanceTimersByTimeAsync(3_000);
    void watch.status(() => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(SILENCE_TO_FAULT_MS - 4_000);
    expect(box.hidden).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(box.dataset.state).toBe('down');
    expect(box.textContent).toContain('The engine stopped responding');
  });
});
