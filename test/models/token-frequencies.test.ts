import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BertTokenizer } from '@huggingface/transformers';
import { MODELS_DIR } from '../../scripts/models/config.ts';
import { countTokens } from '../../scripts/models/token-frequencies.ts';
import { modelsBuilt } from '../support/built-models.ts';

const DIR = `${MODELS_DIR}/minilm-l6-v2`;

describe.skipIf(!modelsBuilt('minilm-l6-v2', [`${DIR}/tokenizer.json`, `${DIR}/tokenizer_config.json`]))('countTokens (SIF frequencies of the distilled static model)', () => {
  it('counts word pieces as the tokenizer emits them, per distinct word times its occurrences', () => {
    // Read here, not while the suite is collected: a skipped suite must not touch the files.
    const json = JSON.parse(readFileSync(`${DIR}/tokenizer.json`, 'utf8')) as { model: { vocab: Record<string, number> } };
    const config = JSON.parse(readFileSync(`${DIR}/tokenizer_config.json`, 'utf8')) as unknown;
    const vocab = json.model.vocab;
    const texts = ['The whale, the WHALE.', 'the harpooneers'];
    const { counts, total } = countTokens(json, config, texts, Object.keys(vocab).length);
    expect(counts[vocab['the']]).toBe(3); // lowercased by the BERT normaliser
    expect(counts[vocab['whale']]).toBe(2);
    expect(counts[vocab[',']]).toBe(1);
    expect(counts[vocab['[CLS]']]).toBe(0); // no special tokens
    // Same multiset as tokenising each whole text: words never share a word piece across whitespace.
    const tokenizer = new BertTokenizer(json, config as object);
    const whole = texts.flatMap((t) => tokenizer.encode(t, { add_special_tokens: false }));
    expect(total).toBe(whole.length);
    for (const id of new Set(whole)) expect(counts[id]).toBe(whole.filter((x) => x === id).length);
  });
});
