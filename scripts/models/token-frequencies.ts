/**
 * WordPiece token counts over a text sample, for the distilled static model's SIF weights (real
 * frequencies instead of a Zipf prior on the token id). Tokenised with transformers.js's own
 * BertTokenizer from the encoder's tokenizer.json, so the counts are of exactly the tokens the
 * model sees. BERT pre-tokenisation never joins across whitespace, so each distinct
 * whitespace-separated word is tokenised once and its tokens counted as often as the word occurs.
 */
import { BertTokenizer } from '@huggingface/transformers';

export interface TokenCounts {
  /** Occurrences per token id. */
  counts: Float64Array;
  /** Sum of `counts`. */
  total: number;
}

export function countTokens(tokenizerJson: unknown, tokenizerConfig: unknown, texts: Iterable<string>, vocabSize: number): TokenCounts {
  const words = new Map<string, number>();
  for (const text of texts) for (const w of text.split(/\s+/)) if (w) words.set(w, (words.get(w) ?? 0) + 1);
  const tokenizer = new BertTokenizer(tokenizerJson as object, tokenizerConfig as object);
  const counts = new Float64Array(vocabSize);
  let total = 0;
  for (const [word, n] of words) {
    for (const id of tokenizer.encode(word, { add_special_tokens: false })) {
      counts[id] += n;
      total += n;
    }
  }
  return { counts, total };
}
