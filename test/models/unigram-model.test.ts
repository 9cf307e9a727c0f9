/**
 * Our Unigram model (src/models/encoder-runtime/unigram-model.ts) gives transformers.js's token
 * ids: on a toy vocabulary over random strings (ties, unknown characters and their fusing, pieces
 * longer than a word), and on the multilingual-e5-small vocabulary over the 258-text parity fixture
 * in 27 scripts (transformers.js's ids there are checked against the wheel's own e5.c in
 * e5-parity.test.ts) and tokenizer edge cases.
 */
import { existsSync, readFileSync } from 'node:fs';
import { AutoTokenizer, env, PreTrainedTokenizer } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { E5_SMALL } from '../../scripts/models/encoders.ts';
import { fastUnigramTokenizer } from '../../src/models/encoder-runtime/unigram-model.ts';

const ids = (t: PreTrainedTokenizer, text: string): number[] => (t(text, { add_special_tokens: true, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;

/** A tokenizer.json like the one scripts/models/unigram-tokenizer.ts writes, over `pieces`. */
function toyJson(pieces: [string, number][]): Record<string, unknown> {
  const vocab: [string, number][] = [['<s>', 0], ['<pad>', 0], ['</s>', 0], ['<unk>', 0], ...pieces];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3].map((id) => ({ id, content: vocab[id][0], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 0 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [0], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } },
    },
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 3, vocab, byte_fallback: false },
  };
}
const CONFIG = { tokenizer_class: 'XLMRobertaTokenizer', bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>', pad_token: '<pad>' };

describe('our Unigram model', () => {
  it('segments as transformers.js does on a toy vocabulary: equal scores, unknown characters, long pieces', () => {
    // Scores with many exact ties (sums of -1 and -2), so tie-breaking decides.
    const pieces: [string, number][] = ['▁', 'a', 'b', 'ab', 'ba', 'aba', 'bab', '▁a', '▁ab', 'abab', 'c', 'bc', 'cab', '▁c', 'é', 'aé', '😀', '▁😀b'].map((p, i) => [p, -1 - (i % 2)]);
    const json = toyJson(pieces);
    const theirs = new PreTrainedTokenizer(json, CONFIG);
    const ours = fastUnigramTokenizer(json, CONFIG)!;
    expect(ours).toBeDefined();
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
    const alphabet = ['a', 'b', 'c', 'é', 'x', 'y', ' ', '😀', 'ab', 'ba'];
    for (let n = 0; n < 400; n++) {
      let text = '';
      for (let k = 1 + Math.floor(next() * 14); k > 0; k--) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(ids(ours, text), JSON.stringify(text)).toEqual(ids(theirs, text));
    }
    expect(ids(ours, 'xyz abab')).toEqual(ids(theirs, 'xyz abab'));
    expect(ids(ours, 'xyz abab').filter((i) => i === 3)).toHaveLength(1); // "xyz" is one fused <unk>
  });

  it('refuses what it does not model (not Unigram, byte fallback) so the caller uses transformers.js', () => {
    const json = toyJson([['a', -1]]);
    expect(fastUnigramTokenizer({ ...json, model: { type: 'WordPiece', vocab: {} } }, CONFIG)).toBeUndefined();
    expect(fastUnigramTokenizer({ ...json, model: { ...(json.model as object), byte_fallback: true } }, CONFIG)).toBeUndefined();
  });

  const folder = `${MODELS_DIR}/${E5_SMALL.name}`;
  const built = existsSync(`${folder}/tokenizer.json`);
  if (!built && process.env.CI) throw new Error(`${folder} is not built: run \`npm run models\``);
  it.skipIf(!built)('gives transformers.js\'s ids for multilingual-e5-small on the parity fixture and on edge cases, and loads several times faster', async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${MODELS_DIR}/`;
    let t = performance.now();
    const theirs = await AutoTokenizer.from_pretrained(E5_SMALL.name);
    const theirMs = performance.now() - t;
    t = performance.now();
    const json = JSON.parse(readFileSync(`${folder}/tokenizer.json`, 'utf8')) as Record<string, unknown>;
    const config = JSON.parse(readFileSync(`${folder}/tokenizer_config.json`, 'utf8')) as Record<string, unknown>;
    const ours = fastUnigramTokenizer(json, config)!;
    const ourMs = performance.now() - t;
    const fixture = JSON.parse(readFileSync(new URL('./fixtures/e5-texts.json', import.meta.url), 'utf8')) as { texts: { text: string }[] };
    const edge = ['', ' ', 'a'.repeat(5000), '🏳️‍🌈👩‍👩‍👧 emoji', '\u0000\u0007\u001b[31m control', 'x\u200bzero\u200dwidth', 'ﬁ ligature ① ㍿', '𝕳𝖊𝖑𝖑𝖔', '<s> literal </s> <mask>', 'ℌ\uFFFD\uD800 lone surrogate'];
    for (const text of [...fixture.texts.map((x) => x.text), ...edge]) {
      for (const prefix of ['', E5_SMALL.prefixes.document]) expect(ids(ours, prefix + text), (prefix + text).slice(0, 60)).toEqual(ids(theirs, prefix + text));
    }
    console.log(`[unigram-model] e5 tokenizer load: transformers.js ${theirMs.toFixed(0)} ms, ours ${ourMs.toFixed(0)} ms (JSON parse included)`);
    expect(ourMs).toBeLessThan(theirMs);
  }, 60_000);
});
