/**
 * The non-ONNX files of a transformers.js model folder: config.json, tokenizer.json,
 * tokenizer_config.json. All JSON is written with fixed key order, so output is byte-stable.
 */
import type { StaticModel } from './static-model.ts';

/** Long enough for any chunk the engine embeds; a lookup table has no positional limit. */
export const MAX_LENGTH = 8192;

/** `model_type: "bert"` makes transformers.js run the graph as a plain encoder (BertModel). */
export function configJson(model: StaticModel): string {
  return json({
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: model.dimension,
    vocab_size: model.tokens.length,
    max_position_embeddings: MAX_LENGTH,
    pad_token_id: 0,
    transformers_version: 'static-embedding',
  });
}

/**
 * WordLevel vocabulary behind BertNormalizer (lowercase, strip accents) and BertPreTokenizer
 * (split on whitespace and punctuation). No post-processor: no [CLS]/[SEP] rows enter the mean.
 */
export function tokenizerJson(model: StaticModel): string {
  const vocab: Record<string, number> = {};
  model.tokens.forEach((t, i) => (vocab[t] = i));
  const special = model.tokens.filter((t) => /^\[[A-Z]+\]$/.test(t));
  return json({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((content) => ({
      id: vocab[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
  });
}

export function tokenizerConfigJson(maxLength = MAX_LENGTH): string {
  return json({
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: maxLength,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
    clean_up_tokenization_spaces: true,
  });
}

/** Stable JSON: insertion-ordered keys, two-space indent, trailing newline. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
