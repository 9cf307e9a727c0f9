import { parseHTML } from 'linkedom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGLISH_SHARE, MIN_KNOWN, modelAdvice, mountModelAdvice, OTHER_LANGUAGES_SHARE } from '../../src/app/model-advice.ts';
import { MODEL_CATALOG } from '../../src/models/catalog.ts';
import type { AvailableModel, CorpusLanguages } from '../../src/protocol/control.ts';

/** The built-in models as the worker lists them (catalog entries plus their files' facts). */
const AVAILABLE: AvailableModel[] = MODEL_CATALOG.map((m) => ({ ...m, dimension: 384, license: 'MIT', dtype: 'q8' }));
const langs = (counts: Record<string, number>, documents = Object.values(counts).reduce((a, b) => a + b, 0)): CorpusLanguages => ({ documents, counts });
const names = (tag: string) => ({ de: 'German', ja: 'Japanese', ru: 'Russian', ar: 'Arabic', hi: 'Hindi', fr: 'French' })[tag] ?? tag;

describe('model advice', () => {
  it('suggests the cross-lingual model when enough documents are not in English, naming their languages', () => {
    const a = modelAdvice('minilm-l6-v2', AVAILABLE, langs({ en: 60, de: 25, ja: 10, ru: 3, ar: 1, hi: 1 }), names);
    expect(a).toMatchObject({ from: 'minilm-l6-v2', to: 'multilingual-e5-small' });
    expect(a!.text).toContain('40 of your 100 documents are not in English (German 25, Japanese 10, Russian 3, Arabic 1, and 1 more language)');
    expect(a!.text).toContain('minilm-l6-v2 compares meanings in English only');
    // The static English models get the same advice.
    expect(modelAdvice('minilm-l6-v2-static-256d', AVAILABLE, langs({ de: 40 }), names)?.to).toBe('multilingual-e5-small');
  });

  it('says nothing below the thresholds: few documents with a known language, or few outside English', () => {
    expect(modelAdvice('minilm-l6-v2', AVAILABLE, langs({ de: MIN_KNOWN - 1 }, 500), names)).toBeUndefined();
    const few = Math.floor(OTHER_LANGUAGES_SHARE * 100) - 1;
    expect(modelAdvice('minilm-l6-v2', AVAILABLE, langs({ en: 100 - few, fr: few }), names)).toBeUndefined();
    expect(modelAdvice('minilm-l6-v2', AVAILABLE, langs({ en: 100 - few - 1, fr: few + 1 }), names)).toBeDefined();
    expect(modelAdvice('minilm-l6-v2', AVAILABLE, undefined, names)).toBeUndefined();
    expect(modelAdvice(undefined, AVAILABLE, langs({ de: 40 }), names)).toBeUndefined();
  });

  it('suggests the better English model when a cross-lingual one runs over an English index, with the measured figures', () => {
    const english = Math.ceil(ENGLISH_SHARE * 200);
    const a = modelAdvice('multilingual-e5-small', AVAILABLE, langs({ en: english, de: 200 - english }), names);
    expect(a).toMatchObject({ from: 'multilingual-e5-small', to: 'minilm-l6-v2' });
    expect(a!.text).toMatch(/hybrid nDCG@10 0\.626 against 0\.588/);
    expect(modelAdvice('multilingual-e5-small', AVAILABLE, langs({ en: english - 1, de: 201 - english }), names)).toBeUndefined();
  });

  it('offers no cross-lingual model that the app does not serve', () => {
    const englishOnly = AVAILABLE.filter((m) => !m.crossLingual);
    expect(modelAdvice('minilm-l6-v2', englishOnly, langs({ de: 50 }), names)).toBeUndefined();
  });
});

describe('the advice line', () => {
  afterEach(() => vi.unstubAllGlobals());

  function page() {
    const { document } = parseHTML('<!doctype html><html><body><div id="advice" hidden></div></body></html>');
    const store = new Map<string, string>();
    vi.stubGlobal('document', document);
    vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) });
    return document.getElementById('advice') as HTMLElement;
  }

  it('shows the advice with a switch, and "Not now" hides it for that pair of models until asked again', async () => {
    const host = page();
    const chooseModel = vi.fn(async () => undefined);
    const control = { models: async () => ({ current: 'minilm-l6-v2', available: AVAILABLE }), languages: async () => langs({ en: 10, de: 10 }), chooseModel };
    const view = mountModelAdvice(host, control, () => undefined);
    await view.refresh();
    expect(host.hidden).toBe(false);
    expect(host.textContent).toContain('10 of your 20 documents are not in English');
    const [use, later] = [...host.querySelectorAll('button')].filter((b) => /Use|Not now/.test(b.textContent ?? ''));
    expect(use.textContent).toBe('Use multilingual-e5-small');
    later.click();
    expect(host.hidden).toBe(true);
    await view.refresh();
    expect(host.hidden).toBe(true); // dismissed for minilm-l6-v2 → multilingual-e5-small
    expect(chooseModel).not.toHaveBeenCalled();
  });
});
