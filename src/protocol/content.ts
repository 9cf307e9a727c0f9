import { invalidParams, optionUnsupported } from './errors.ts';
import type { ContentBlock, Modality, Query } from './types.ts';
import { fieldPath, isRecord, optString, read, reqString } from './validate-kit.ts';

/**
 * §4.8 Content blocks and queries. A bare string equals `{type:"text",text}`; a block whose
 * modality the server did not advertise is -32005 with `data.option = "modality"`; a malformed
 * block is -32602 naming the member (`query[1].mimeType`).
 */

/** Block types RCP/1 defines. */
export const CONTENT_TYPES = Object.freeze(['text', 'image', 'audio', 'blob'] as const);

/** §4.8: when a capability does not list modalities, it accepts text only. */
export const DEFAULT_MODALITIES: readonly Modality[] = Object.freeze(['text']);

/**
 * The modality a block needs: text → `text`, image → `image`, audio → `audio`; a `blob` maps by
 * its mimeType (`image/*`, `audio/*`) and otherwise needs `multimodal`.
 */
export function blockModality(b: ContentBlock): Modality {
  if (b.type !== 'blob') return b.type;
  if (b.mimeType.startsWith('image/')) return 'image';
  if (b.mimeType.startsWith('audio/')) return 'audio';
  return 'multimodal';
}

/** Validates one Content block and gates it on `modalities`. Unknown members are dropped. */
export function validateContentBlock(v: unknown, field: string, modalities: readonly Modality[] = DEFAULT_MODALITIES): ContentBlock {
  if (!isRecord(v)) throw invalidParams(field, 'must be a string or a Content block');
  const type = read(v, 'type');
  if (typeof type !== 'string' || !(CONTENT_TYPES as readonly string[]).includes(type)) {
    throw invalidParams(fieldPath(field, 'type'), `must be one of ${CONTENT_TYPES.join(', ')}`);
  }
  let block: ContentBlock;
  if (type === 'text') {
    block = { type: 'text', text: reqString(v, 'text', fieldPath(field, 'text')) };
  } else {
    const mimeType = reqString(v, 'mimeType', fieldPath(field, 'mimeType'), { nonEmpty: true });
    const data = optString(v, 'data', fieldPath(field, 'data'));
    const uri = optString(v, 'uri', fieldPath(field, 'uri'), { nonEmpty: true });
    if ((data === undefined) === (uri === undefined)) throw invalidParams(field, 'a non-text block carries exactly one of data or uri');
    block = { type: type as 'image' | 'audio' | 'blob', mimeType, ...(data !== undefined ? { data } : { uri }) };
  }
  const modality = blockModality(block);
  if (!modalities.includes(modality)) {
    throw optionUnsupported('modality', `${field}: modality '${modality}' is not advertised`);
  }
  return block;
}

/** One input of `embed`/`rerank`: a bare string or a Content block. */
export function validateInput(v: unknown, field: string, modalities: readonly Modality[] = DEFAULT_MODALITIES): string | ContentBlock {
  return typeof v === 'string' ? v : validateContentBlock(v, field, modalities);
}

/** A `query` (§7.7): a string, one block, or a non-empty array of blocks. */
export function validateQuery(v: unknown, field: string, modalities: readonly Modality[] = DEFAULT_MODALITIES): Query {
  if (v === undefined || v === null) throw invalidParams(field, 'is required');
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    if (v.length === 0) throw invalidParams(field, 'must not be an empty array');
    return v.map((b, i) => validateContentBlock(b, fieldPath(field, i), modalities));
  }
  return validateContentBlock(v, field, modalities);
}

/** The text of a query or input: the string itself, or its text blocks joined by a newline. */
export function contentText(q: Query | ContentBlock | string): string {
  if (typeof q === 'string') return q;
  const blocks = Array.isArray(q) ? q : [q];
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).filter((t) => t !== '').join('\n');
}
