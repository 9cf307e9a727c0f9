import { echo } from './limits.ts';
import { contentText, validateInput, validateQuery } from './content.ts';
import { EMBED_KINDS } from './enums.ts';
import { invalidParams, optionUnsupported, payloadTooLarge } from './errors.ts';
import type {
  Capabilities, ContentBlock, EmbedParams, IndexAddParams, IndexDeleteParams, IndexDocument, InitializeParams,
  Modality, MultiEmbedParams, PingParams, RerankMethod, RerankParams, VectorEncoding,
} from './types.ts';
import {
  compact, expectObject, fieldPath, isInteger, metaOf, optArray, optBool, optEnum, optInt, optObject, optOption, optString,
  paramsObject, read, reqString, stringArray, utf8Length,
} from './validate-kit.ts';

/**
 * Params validators for every method except `retrieve` (see validate-retrieve.ts). Each takes the
 * raw `params` (absent ⇒ `{}`), returns typed params or throws one RcpError: -32602 with
 * `data.field` for malformed input, -32005 with `data.option` for an unadvertised option,
 * -32013 with `data.field` for a request over an advertised limit. Unknown members are ignored
 * (§4.6); `_meta` passes through. Method gating (-32003) is the dispatcher's job, not theirs.
 */

/** §7.15 `ping`: `nonce` is an optional string or finite number, echoed back. */
export function validatePing(raw: unknown): PingParams {
  const o = paramsObject(raw);
  const nonce = read(o, 'nonce');
  if (nonce !== undefined && typeof nonce !== 'string' && !(typeof nonce === 'number' && Number.isFinite(nonce))) {
    throw invalidParams('nonce', 'must be a string or a number');
  }
  return compact({ nonce: nonce as string | number | undefined, ...metaOf(o) });
}

/**
 * §7.1 `initialize`: `protocolVersion` is a required integer (a value below the floor is left to
 * the caller, which answers -32002); `client` and `capabilities` are optional objects.
 */
export function validateInitialize(raw: unknown): InitializeParams {
  const o = paramsObject(raw);
  const v = read(o, 'protocolVersion');
  if (v === undefined) throw invalidParams('protocolVersion', 'is required');
  if (!isInteger(v)) throw invalidParams('protocolVersion', 'must be an integer');
  const client = optObject(o, 'client');
  if (client) {
    optString(client, 'name', 'client.name');
    optString(client, 'version', 'client.version');
  }
  return compact({
    protocolVersion: v,
    client: client as InitializeParams['client'],
    capabilities: optObject(o, 'capabilities') as InitializeParams['capabilities'],
    ...metaOf(o),
  });
}

/**
 * §7.10 `index/add`: `documents` required (an empty array is valid); each needs a string `text`,
 * an optional non-empty string `id`, an optional object `meta`. `chunk`/`contextual: true` need
 * `index.chunking`/`index.contextual` (-32005). Over `index.maxDocuments`, or over `index.maxBytes`
 * counted as the UTF-8 bytes of every text plus the JSON text of every meta, is -32013.
 */
export function validateIndexAdd(raw: unknown, caps: Capabilities): IndexAddParams {
  const o = paramsObject(raw);
  const list = optArray(o, 'documents');
  if (!list) throw invalidParams('documents', 'is required');
  const maxDocs = caps.index?.maxDocuments;
  if (typeof maxDocs === 'number' && list.length > maxDocs) {
    throw payloadTooLarge('documents', `${list.length} documents exceed index.maxDocuments ${maxDocs}`);
  }
  const documents = list.map((d, i): IndexDocument => {
    const at = fieldPath('documents', i);
    const doc = expectObject(d, at);
    return compact({
      id: optString(doc, 'id', `${at}.id`, { nonEmpty: true }),
      text: reqString(doc, 'text', `${at}.text`),
      meta: optObject(doc, 'meta', `${at}.meta`),
    });
  });
  const chunk = optBool(o, 'chunk');
  const contextual = optBool(o, 'contextual');
  if (chunk && !caps.index?.chunking) throw optionUnsupported('chunk', 'server-side chunking is not advertised');
  if (contextual && !caps.index?.contextual) throw optionUnsupported('contextual', 'contextual retrieval is not advertised');
  const maxBytes = caps.index?.maxBytes;
  if (typeof maxBytes === 'number') {
    let bytes = 0;
    for (const [i, d] of documents.entries()) {
      bytes += utf8Length(d.text) + (d.meta ? utf8Length(jsonText(d.meta, `documents[${i}].meta`)) : 0);
      if (bytes > maxBytes) throw payloadTooLarge('documents', `documents exceed index.maxBytes ${maxBytes}`);
    }
  }
  return compact({ documents, chunk, contextual, ...metaOf(o) });
}

/** JSON text of a value that came from JSON; a pathological one (e.g. nested too deep to re-serialise) is -32602. */
function jsonText(v: unknown, field: string): string {
  try {
    return JSON.stringify(v);
  } catch {
    throw invalidParams(field, 'cannot be serialised as JSON');
  }
}

/** §7.11 `index/delete`: `ids` is a required array of strings (absent ids are not an error later). */
export function validateIndexDelete(raw: unknown): IndexDeleteParams {
  const o = paramsObject(raw);
  const ids = optArray(o, 'ids');
  if (!ids) throw invalidParams('ids', 'is required');
  return compact({ ids: stringArray(ids, 'ids'), ...metaOf(o) });
}

interface EmbedLikeCap {
  modalities?: Modality[];
  encodings?: VectorEncoding[];
  batchLimit?: number;
}

/** Validated `embed`/`embed/multi` params: legacy `texts` is folded into `inputs`. */
export type ValidatedEmbed = Omit<EmbedParams, 'inputs' | 'texts'> & { inputs: (string | ContentBlock)[]; encoding: VectorEncoding };

/**
 * §7.3 `embed`: `inputs` (or legacy `texts`, used only when `inputs` is absent) is required, each
 * a string or a Content block of an advertised modality (-32005 `modality`). `kind` is an enum.
 * `encoding` defaults to `json` (always allowed); an unadvertised one is -32005 `encoding`, or
 * `json` under `strict:false` (§7.3.1; the result echoes what was used). More inputs than
 * `embed.batchLimit` is -32013 with `data.field` naming the list. `model`, when given, must name the
 * served encoder (its identity, or the name before its '@'): another is -32005 `model` (served
 * anyway under `strict:false`; the result's `model` names the one used).
 */
export function validateEmbed(raw: unknown, caps: Capabilities): ValidatedEmbed & { model?: string } {
  const p = validateEmbedLike(raw, caps.embed);
  const model = optString(paramsObject(raw), 'model');
  if (model !== undefined && !namesModel(model, caps.embed?.identity) && (optBool(paramsObject(raw), 'strict') ?? true)) {
    throw optionUnsupported('model', `embed model ${echo(model)} is not served: this engine embeds with ${caps.embed?.identity ?? 'no model'} (choose another with the bridges' --model or the library's models option)`);
  }
  return model === undefined ? p : { ...p, model };
}

/** `model` names the served encoder: its §15.7 identity, or the model name before the '@' (the folder). */
const namesModel = (model: string, identity: string | undefined): boolean => identity !== undefined && (model === identity || model === identity.split('@')[0]);

/** §7.5 `embed/multi`: as `validateEmbed`, against the `multiVector` capability. */
export function validateEmbedMulti(raw: unknown, caps: Capabilities): ValidatedEmbed & Omit<MultiEmbedParams, 'inputs' | 'texts'> {
  return validateEmbedLike(raw, caps.multiVector as EmbedLikeCap | undefined);
}

/**
 * §7.4 `embed/sparse`: `texts` (or `inputs`, as for `embed`) is required, each a string or a text
 * block; `kind` an enum; more than `sparseEmbed.batchLimit` texts is -32013. Sparse vectors have
 * no binary encoding, so `encoding` other than `json` is -32005 (or ignored under `strict:false`).
 */
export function validateEmbedSparse(raw: unknown, caps: Capabilities): { texts: string[]; kind?: 'query' | 'document' } {
  const o = paramsObject(raw);
  if (read(o, 'texts') === undefined && read(o, 'inputs') === undefined) throw invalidParams('texts', 'is required');
  const p = validateEmbedLike(o, caps.sparseEmbed);
  return compact({ texts: p.inputs.map(contentText), kind: p.kind, ...metaOf(o) });
}

function validateEmbedLike(raw: unknown, cap: EmbedLikeCap | undefined): ValidatedEmbed {
  const o = paramsObject(raw);
  const key = read(o, 'inputs') !== undefined ? 'inputs' : 'texts';
  const list = optArray(o, key);
  if (!list) throw invalidParams('inputs', 'is required (or legacy texts)');
  const limit = cap?.batchLimit;
  if (typeof limit === 'number' && list.length > limit) {
    throw payloadTooLarge(key, `${list.length} inputs exceed batchLimit ${limit}`);
  }
  const modalities = cap?.modalities ?? ['text'];
  const inputs = list.map((v, i) => validateInput(v, fieldPath(key, i), modalities));
  let encoding = optOption<VectorEncoding>(o, 'encoding') ?? 'json';
  if (encoding !== 'json' && !(cap?.encodings ?? []).includes(encoding)) {
    if (optBool(o, 'strict') ?? true) throw optionUnsupported('encoding', `encoding ${echo(encoding)} is not advertised`);
    encoding = 'json';
  }
  return compact({ inputs, kind: optEnum(o, 'kind', 'kind', EMBED_KINDS), encoding, ...metaOf(o) });
}

/**
 * §7.6 `rerank`: `query` required; `passages` (or legacy `documents`) required, each a string or a
 * text block (flattened to its text). `method` must be in `rerank.methods` (-32005 `method`),
 * `model` in `rerank.models` when listed (-32005 `model`), `topN` an integer ≥ 1. More passages
 * than `rerank.maxCandidates` is -32013.
 */
export function validateRerank(raw: unknown, caps: Capabilities): RerankParams & { passages: string[]; model?: string } {
  const o = paramsObject(raw);
  const query = validateQuery(read(o, 'query'), 'query');
  const key = read(o, 'passages') !== undefined ? 'passages' : 'documents';
  const list = optArray(o, key);
  if (!list) throw invalidParams('passages', 'is required (or legacy documents)');
  const max = caps.rerank?.maxCandidates;
  if (typeof max === 'number' && list.length > max) {
    throw payloadTooLarge(key, `${list.length} passages exceed rerank.maxCandidates ${max}`);
  }
  const passages = list.map((v, i) => contentText(validateInput(v, fieldPath(key, i))));
  const method = optOption<RerankMethod>(o, 'method');
  if (method !== undefined && !(caps.rerank?.methods ?? []).includes(method)) {
    throw optionUnsupported('method', `rerank method ${echo(method)} is not advertised`);
  }
  const model = optString(o, 'model');
  const models = caps.rerank?.models;
  if (model !== undefined && models && !models.includes(model)) {
    throw optionUnsupported('model', `rerank model ${echo(model)} is not advertised`);
  }
  return compact({ query, passages, method, model, topN: optInt(o, 'topN', 'topN', { min: 1 }), ...metaOf(o) });
}
