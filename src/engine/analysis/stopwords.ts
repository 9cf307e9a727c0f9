/**
 * English stopword lists. Stopwords are removed only from QUERIES by default (see analyzer.ts):
 * documents keep every token, so no text becomes unsearchable and a stopword-only query
 * ("to be or not to be") still matches.
 */

/** Lucene `EnglishAnalyzer` / Anserini default stop set (33 words). */
export const LUCENE_STOPWORDS: readonly string[] = Object.freeze(
  (
    'a an and are as at be but by for if in into is it no not of on or such ' +
    'that the their then there these they this to was will with'
  ).split(' '),
);

/** NLTK English stop list (179 words; contraction fragments included because tokens split at apostrophes). */
export const NLTK_STOPWORDS: readonly string[] = Object.freeze(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her ' +
    'hers herself it its itself they them their theirs themselves what which who whom this that these ' +
    'those am is are was were be been being have has had having do does did doing a an the and but if ' +
    'or because as until while of at by for with about against between into through during before after ' +
    'above below to from up down in out on off over under again further then once here there when where ' +
    'why how all any both each few more most other some such no nor not only own same so than too very s ' +
    't can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma ' +
    'mightn mustn needn shan shouldn wasn weren won wouldn'
  ).split(' '),
);

export type StopwordList = 'none' | 'lucene' | 'nltk';

/** The set for a list name. */
export function stopwordSet(list: StopwordList): ReadonlySet<string> {
  if (list === 'lucene') return new Set(LUCENE_STOPWORDS);
  if (list === 'nltk') return new Set(NLTK_STOPWORDS);
  return new Set();
}
