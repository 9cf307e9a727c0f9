/**
 * Which language a document is written in, for `meta.lang` (a filterable keyword field) when the
 * document does not say. Detector: `eld` (Nito-ELD, Apache-2.0, n-gram scores over 60 languages),
 * its smallest database (950 KB of JS, 280 KB gzipped), loaded on first use as a chunk of its own,
 * so a page that adds nothing never downloads it.
 *
 * Chosen by measurement on the dev sets (docs/multilingual.md): on the 1,000 short tatoeba
 * sentences per language it named de 99.9%, fr 98.3%, es 96.7%, ru 91.6%, zh 97.8%, ja 99.9%,
 * ar 97.6%, hi 94.2%, en 99.3% correctly, against 47–95% for franc-min (82 languages, 48 KB) and
 * franc, at a third of their time; tinyld was as accurate on sentences but named only 54% of the
 * CACM abstracts English. Only a result eld calls reliable is kept (CACM: 96% of the documents get
 * one, 3.6% of those wrong — titles such as "ROOTFINDER III (Algorithm 26)"); the first 2,000
 * characters decide, which is plenty for n-gram scores and bounds the cost of a long document.
 */

/** ISO 639-1 code of `text`'s language, or undefined when the detector is not confident. */
export type LanguageDetector = (text: string) => string | undefined;

/** Characters of a document the detector reads. */
export const DETECTION_SAMPLE = 2000;

let loading: Promise<LanguageDetector> | undefined;

/** The eld detector, loaded once. */
export function loadLanguageDetector(): Promise<LanguageDetector> {
  loading ??= import('eld/extrasmall').then(({ eld }) => {
    const detector = eld.newInstance();
    return (text: string) => {
      const sample = text.slice(0, DETECTION_SAMPLE);
      if (!/\p{L}/u.test(sample)) return undefined;
      const result = detector.detect(sample);
      return result.language && result.isReliable() ? result.language : undefined;
    };
  });
  loading.catch(() => (loading = undefined)); // a failed chunk load may be retried by the next add
  return loading;
}
