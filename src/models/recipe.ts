/**
 * How a sentence encoder turns token states into one vector, as its authors trained it: the
 * pooling (mean over the attention mask for all-MiniLM-L6-v2, the [CLS] row for bge), the text
 * prepended to queries and to documents (bge's retrieval instruction), and the longest input.
 * Read from our build's manifest.json when it says so, else from the sentence-transformers files
 * a downloaded folder carries (`1_Pooling/config.json`, `config_sentence_transformers.json`,
 * `sentence_bert_config.json`), else the defaults (mean, no prefixes, the tokenizer's own limit).
 */

export type Pooling = 'mean' | 'cls';

export interface EncoderRecipe {
  pooling: Pooling;
  /** Prepended to every `kind: 'query'` text (may be ''). */
  queryPrefix: string;
  /** Prepended to every `kind: 'document'` text (may be ''). */
  documentPrefix: string;
  /** Tokens per input after truncation; undefined = the tokenizer's `model_max_length`. */
  maxLength?: number;
  /**
   * Lowercase a text written in capitals before a cased tokenizer reads it: XLM-R's SentencePiece
   * vocabulary (e5) splits "MICROWAVE TECHNIQUES" into rare pieces the model barely saw in training,
   * while an uncased model (MiniLM) lowercases everything anyway.
   */
  foldCapitals?: boolean;
}

export const DEFAULT_RECIPE: Readonly<EncoderRecipe> = Object.freeze({ pooling: 'mean', queryPrefix: '', documentPrefix: '' });

/** The recipe fields a manifest may carry (scripts/build-models.ts writes them). */
export interface ManifestRecipeFields {
  pooling?: unknown;
  /** `{ query?: string, document?: string }` */
  prefixes?: unknown;
  queryPrefix?: unknown;
  documentPrefix?: unknown;
  maxLength?: unknown;
  maxSequenceLength?: unknown;
  foldCapitals?: unknown;
}

/** The sentence-transformers files of a folder, parsed (each may be absent). */
export interface SentenceTransformersFiles {
  /** `1_Pooling/config.json` */
  pooling?: Record<string, unknown>;
  /** `config_sentence_transformers.json` (its `prompts` map) */
  st?: Record<string, unknown>;
  /** `sentence_bert_config.json` (its `max_seq_length`) */
  bert?: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const posInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

function poolingOf(v: unknown): Pooling | undefined {
  if (v === 'mean' || v === 'cls') return v;
  if (v === 'cls_token' || v === 'CLS') return 'cls';
  if (v === 'mean_tokens') return 'mean';
  return undefined;
}

/**
 * Resolves the recipe; throws on a pooling this runtime cannot compute (max, weighted, lasttoken):
 * serving vectors the model was not trained to give would be a silent quality loss.
 */
export function resolveRecipe(manifest: ManifestRecipeFields | undefined, files: SentenceTransformersFiles): EncoderRecipe {
  const recipe: EncoderRecipe = { ...DEFAULT_RECIPE };
  const p = files.pooling;
  if (p) {
    const modes = ['cls_token', 'mean_tokens', 'max_tokens', 'mean_sqrt_len_tokens', 'weightedmean_tokens', 'lasttoken'].filter((m) => p[`pooling_mode_${m}`] === true);
    if (modes.length === 1 && (modes[0] === 'cls_token' || modes[0] === 'mean_tokens')) recipe.pooling = modes[0] === 'cls_token' ? 'cls' : 'mean';
    else if (modes.length > 0) throw new Error(`pooling ${modes.join('+')} is not supported (only mean or cls)`);
  }
  const prompts = files.st?.prompts;
  if (prompts && typeof prompts === 'object') {
    const o = prompts as Record<string, unknown>;
    recipe.queryPrefix = str(o.query) ?? recipe.queryPrefix;
    recipe.documentPrefix = str(o.document) ?? str(o.passage) ?? recipe.documentPrefix;
  }
  recipe.maxLength = posInt(files.bert?.max_seq_length) ?? recipe.maxLength;

  if (manifest) {
    if (manifest.pooling !== undefined) {
      const pooling = poolingOf(manifest.pooling);
      if (!pooling) throw new Error(`manifest pooling '${String(manifest.pooling)}' is not supported (only mean or cls)`);
      recipe.pooling = pooling;
    }
    const prefixes = manifest.prefixes && typeof manifest.prefixes === 'object' ? (manifest.prefixes as Record<string, unknown>) : {};
    recipe.queryPrefix = str(prefixes.query) ?? str(manifest.queryPrefix) ?? recipe.queryPrefix;
    recipe.documentPrefix = str(prefixes.document) ?? str(manifest.documentPrefix) ?? recipe.documentPrefix;
    recipe.maxLength = posInt(manifest.maxLength) ?? posInt(manifest.maxSequenceLength) ?? recipe.maxLength;
    if (manifest.foldCapitals === true) recipe.foldCapitals = true;
  }
  return recipe;
}

/** Letters that have a case (Latin, Greek, Cyrillic, …); scripts without case never fold. */
const CASED = /\p{Lu}|\p{Ll}/gu;
const UPPER = /\p{Lu}/gu;

/**
 * Whether a text is written in capitals: at least 8 cased letters, 80% or more of them upper
 * case (old news wires, telegram-style queries, headings typed with Caps Lock). Acronyms inside
 * ordinary prose stay far below that share.
 */
export function inCapitals(text: string): boolean {
  const cased = text.match(CASED)?.length ?? 0;
  if (cased < 8) return false;
  return (text.match(UPPER)?.length ?? 0) >= 0.8 * cased;
}

/** The texts as the model must see them for `kind`. */
export function withPrefix(recipe: EncoderRecipe, texts: readonly string[], kind: 'query' | 'document'): string[] {
  const prefix = kind === 'query' ? recipe.queryPrefix : recipe.documentPrefix;
  const fold = recipe.foldCapitals ? (t: string) => (inCapitals(t) ? t.toLowerCase() : t) : (t: string) => t;
  return texts.map((t) => prefix + fold(t));
}
