/**
 * A model folder's tokenizer and raw files. XLM-R's 250k-piece Unigram vocabulary loads through
 * our own model (encoder-runtime/unigram-model.ts: 0.35 s against transformers.js's 1.4 s in Node,
 * identical ids) on every runtime — our kernels and transformers.js alike.
 */
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { fastUnigramTokenizer } from './encoder-runtime/unigram-model.ts';
import type { ModelFolder } from './model-folder.ts';

/** A file of the model base: fetched, or read from disk in Node. */
export async function readModelFile(path: string, node: boolean): Promise<ArrayBuffer> {
  if (node) {
    const fsName = 'node:fs/promises'; // a variable keeps bundlers from resolving it for the browser
    const fs = (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises');
    const b = await fs.readFile(path);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

/**
 * The folder's tokenizer: a Unigram vocabulary (e5's 250k pieces) with our fast model inside
 * (unigram-model.ts), anything else through transformers.js (its environment already points at
 * the app's own files).
 */
export async function loadTokenizer(folder: ModelFolder, base?: string, node = false): Promise<PreTrainedTokenizer> {
  // XLM-R models ship a SentencePiece Unigram vocabulary (a BERT's WordPiece loads fast as it is).
  if (base !== undefined && folder.config.model_type === 'xlm-roberta') {
    const read = async (name: string) => JSON.parse(new TextDecoder().decode(await readModelFile(`${base}${folder.name}/${name}`, node))) as Record<string, unknown>;
    const [json, config] = await Promise.all([read('tokenizer.json'), read('tokenizer_config.json')]);
    const fast = fastUnigramTokenizer(json, config);
    if (fast) return fast;
  }
  return AutoTokenizer.from_pretrained(folder.name);
}
