/**
 * Tokenization that truncates like the upstream (Python) tokenizers: the word pieces are cut to
 * `maxLength` minus the model's special tokens, and the special tokens are added after, so a long
 * text keeps its final [SEP]. transformers.js 4.3 truncates the post-processed ids instead, which
 * drops the [SEP] of every text over `maxLength` pieces (cosine ≈ 0.998 to upstream on MiniLM).
 *
 * The special tokens come from the tokenizer's own post-processor: a text is encoded with and
 * without them, and whatever the post-processor put before and after the body is kept around the
 * truncated body. This works for every single-sequence post-processor (BERT, RoBERTa, template).
 */
import { Tensor, type PreTrainedTokenizer } from '@huggingface/transformers';

/** One encoded text, as the tokenizer returns it without tensors. */
export interface Encoded {
  input_ids: number[];
  attention_mask: number[];
  token_type_ids?: number[];
}

/** The model inputs for a batch: int64 tensors, right- or left-padded as the tokenizer says. */
export type TokenizedBatch = Record<string, Tensor> & { input_ids: Tensor; attention_mask: Tensor };

/** `text` encoded with special tokens and at most `maxLength` ids, the special tokens kept. */
export function encodeTruncated(tokenizer: PreTrainedTokenizer, text: string, maxLength: number | undefined): Encoded {
  const full = tokenizer(text, { add_special_tokens: true, return_tensor: false }) as unknown as Encoded;
  if (!maxLength || full.input_ids.length <= maxLength) return full;
  const body = (tokenizer(text, { add_special_tokens: false, return_tensor: false }) as unknown as Encoded).input_ids;
  const specials = full.input_ids.length - body.length;
  const before = bodyOffset(full.input_ids, body);
  const keep = maxLength - specials;
  if (before < 0 || keep <= 0) throw new Error(`cannot truncate to ${maxLength} tokens: the tokenizer's special tokens do not wrap the text`);
  const cut = <T>(xs: T[]): T[] => [...xs.slice(0, before + keep), ...xs.slice(before + body.length)];
  return {
    input_ids: cut(full.input_ids),
    attention_mask: cut(full.attention_mask),
    ...(full.token_type_ids ? { token_type_ids: cut(full.token_type_ids) } : {}),
  };
}

/** Where `body` starts inside `full` (the post-processor adds tokens only before and after it), or -1. */
function bodyOffset(full: readonly number[], body: readonly number[]): number {
  for (let at = 0; at + body.length <= full.length; at++) {
    let same = true;
    for (let i = 0; i < body.length && same; i++) same = full[at + i] === body[i];
    if (same) return at;
  }
  return -1;
}

/** The truncation length: the model recipe's, else the tokenizer's own `model_max_length` when it is a real bound. */
export function tokenLimit(recipeMaxLength: number | undefined, tokenizer: PreTrainedTokenizer): number | undefined {
  const own = tokenizer.model_max_length;
  return recipeMaxLength ?? (Number.isFinite(own) && own > 0 ? own : undefined);
}

/**
 * An empty input tokenises to zero tokens, which ONNX Runtime cannot gather; one space is also zero
 * tokens but keeps shapes valid after padding (and gets the special tokens like any text).
 */
export function nonEmpty(text: string): string {
  return text.length ? text : ' ';
}

/** A padded batch of `texts`, each truncated by `encodeTruncated`. */
export function tokenizeTruncated(tokenizer: PreTrainedTokenizer, texts: readonly string[], maxLength: number | undefined): TokenizedBatch {
  return padEncoded(tokenizer, texts.map((t) => encodeTruncated(tokenizer, t, maxLength)));
}

/** Encoded texts (at least one) as one padded batch, right- or left-padded as the tokenizer says. */
export function padEncoded(tokenizer: PreTrainedTokenizer, encoded: readonly Encoded[]): TokenizedBatch {
  const width = Math.max(...encoded.map((e) => e.input_ids.length));
  const left = tokenizer.padding_side === 'left';
  const padId = tokenizer.pad_token_id ?? 0;
  const out: Record<string, Tensor> = {};
  for (const key of Object.keys(encoded[0]) as (keyof Encoded)[]) {
    const data = new BigInt64Array(encoded.length * width);
    encoded.forEach((e, row) => {
      const values = e[key] ?? [];
      const pad = width - values.length;
      if (key === 'input_ids' && padId !== 0) data.fill(BigInt(padId), row * width, (row + 1) * width);
      values.forEach((v, i) => (data[row * width + (left ? pad : 0) + i] = BigInt(v)));
    });
    out[key] = new Tensor('int64', data, [encoded.length, width]);
  }
  return out as TokenizedBatch;
}
