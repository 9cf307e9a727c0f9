/**
 * A SentencePiece Unigram tokenizer that loads in a fraction of transformers.js's time, for the
 * kernel runtime's multilingual model (XLM-R's 250,002 pieces).
 *
 * Why: transformers.js builds its Unigram model's trie with one Map per node; for XLM-R that is
 * 1.5 of the tokenizer's 2 s load (1.7–2.0 s in Node, most of it the trie and its garbage), which
 * alone took multilingual-e5-small's cold load past the 3 s target. Here the pieces go into one
 * Map (≈ 0.1 s) and the Viterbi search looks substrings up, at most the longest piece's length
 * from each position.
 *
 * Everything around the model — normalizer, Metaspace pre-tokenizer, added tokens, post-processor,
 * padding — stays transformers.js's: the tokenizer is built from the same tokenizer.json with its
 * vocabulary cut to the special pieces, and its model is then replaced by this one. The search is
 * the same as transformers.js's TokenLattice (scores summed along the path; among equal scores the
 * last piece that starts earliest wins; a character no piece covers is the unknown piece at the
 * lowest score − 10, and runs of unknowns are fused), so the token ids are identical: the parity
 * test (test/models/e5-tokenizer.test.ts) compares both on its fixture of 20+ scripts.
 */
import { PreTrainedTokenizer } from '@huggingface/transformers';

/** The `model` section of a tokenizer.json of type Unigram. */
interface UnigramJson {
  type: 'Unigram';
  unk_id: number;
  vocab: [string, number][];
  byte_fallback?: boolean;
}

/** What transformers.js's Tokenizer reads of its model (besides calling it on pre-tokenized words). */
interface TokenizerModelLike {
  (words: string[]): string[];
  vocab: string[];
  tokens_to_ids: Map<string, number>;
  unk_token_id: number;
  unk_token: string;
}

/** The Unigram model over `pieces` and their `scores`, as a callable transformers.js can use. */
export function unigramModel(pieces: string[], scores: readonly number[], unkId: number): TokenizerModelLike {
  const ids = new Map<string, number>();
  let maxChars = 1;
  let minScore = Infinity;
  for (let i = 0; i < pieces.length; i++) {
    ids.set(pieces[i], i);
    if (scores[i] < minScore) minScore = scores[i];
    // UTF-16 length bounds the code points: a looser bound only costs a few more lookups.
    if (pieces[i].length > maxChars) maxChars = pieces[i].length;
  }
  const unkScore = minScore - 10;
  const score = (id: number) => (id === unkId ? unkScore : scores[id]);

  /** The best segmentation of one word into pieces (their texts; an unknown character as itself). */
  const segment = (word: string): string[] => {
    const chars = Array.from(word);
    const n = chars.length;
    if (n === 0) return [];
    const best = new Float64Array(n + 1); // best path score ending at each position
    const from = new Int32Array(n + 1); // where its last piece begins
    // Every position is reached: a single character is always a piece or the unknown piece.
    for (let end = 1; end <= n; end++) {
      // Candidates in transformers.js's order: the earliest start first; a later one wins only when strictly better.
      let text = '';
      const starts = Math.max(0, end - maxChars);
      const pieceAt: number[] = [];
      for (let b = end - 1; b >= starts; b--) {
        text = chars[b] + text;
        pieceAt.push(ids.get(text) ?? -1);
      }
      let chosen = -1;
      let chosenScore = 0;
      for (let k = pieceAt.length - 1; k >= 0; k--) {
        const b = end - 1 - k;
        let id = pieceAt[k];
        // A single character no piece covers is the unknown piece.
        if (id < 0 && k === 0) id = unkId;
        if (id < 0) continue;
        const s = best[b] + score(id);
        if (chosen < 0 || s > chosenScore) {
          chosen = b;
          chosenScore = s;
        }
      }
      best[end] = chosenScore;
      from[end] = chosen;
    }
    const out: string[] = [];
    for (let end = n; end > 0; end = from[end]) out.push(chars.slice(from[end], end).join(''));
    return out.reverse();
  };

  const model = ((words: string[]): string[] => fuseUnknown(words.flatMap(segment), ids, unkId)) as TokenizerModelLike;
  model.vocab = pieces; // the tokenizer writes its added tokens' texts here
  model.tokens_to_ids = ids;
  model.unk_token_id = unkId;
  model.unk_token = pieces[unkId];
  return model;
}

/** Runs of unknown pieces become one (transformers.js `fuse_unk`). */
function fuseUnknown(tokens: string[], ids: ReadonlyMap<string, number>, unkId: number): string[] {
  const out: string[] = [];
  let lastUnknown = false;
  for (const t of tokens) {
    const unknown = (ids.get(t) ?? unkId) === unkId;
    if (unknown && lastUnknown) out[out.length - 1] += t;
    else out.push(t);
    lastUnknown = unknown;
  }
  return out;
}

/**
 * A transformers.js tokenizer for a Unigram tokenizer.json with our model inside, or undefined when
 * the file is not Unigram (or the library's shape is not the one this was written against).
 */
export function fastUnigramTokenizer(tokenizerJson: Record<string, unknown>, tokenizerConfig: Record<string, unknown>): PreTrainedTokenizer | undefined {
  const model = tokenizerJson.model as UnigramJson | undefined;
  if (model?.type !== 'Unigram' || model.byte_fallback || !Array.isArray(model.vocab) || !(model.unk_id >= 0)) return undefined;
  const stub = { ...tokenizerJson, model: { ...model, vocab: model.vocab.slice(0, model.unk_id + 1) } };
  const tokenizer = new PreTrainedTokenizer(stub, tokenizerConfig);
  const inner = (tokenizer as unknown as { _tokenizer?: { model?: unknown } })._tokenizer;
  if (!inner || typeof inner.model !== 'function') return undefined;
  const pieces = model.vocab.map((p) => p[0]);
  const scores = model.vocab.map((p) => p[1]);
  inner.model = unigramModel(pieces, scores, model.unk_id);
  return tokenizer;
}
