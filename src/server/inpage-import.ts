/**
 * `x-inpage/import` (src/server/inpage-handlers.ts): its params validated into a plan, then the
 * plan run against the engine, one add per way the documents were indexed.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { InpageImportResult } from '../protocol/inpage.ts';
import { decodeF32Base64 } from '../protocol/vector-codec.ts';
import { expectObject, optArray, optBool, optInt, optObject, reqString, type Obj } from '../protocol/validate-kit.ts';
import { presetKey } from '../engine/index/prepare.ts';
import type { HandlerContext, ServedEngine } from './backend.ts';
import { importExtras } from './import-extras.ts';

type ImportDoc = { id: string; text: string; meta?: Record<string, unknown> };

/** An import, validated: documents grouped by how they were indexed, the vectors to reuse, the extras to put back. */
export interface ImportPlan {
  /** The exporting model (`model`), when given: its vectors are reused only if it is the running model. */
  identity: string | undefined;
  dimension: number;
  /** Given vectors by presetKey(id, start, end). */
  vectors: Map<string, Float32Array>;
  /** Documents by how they were indexed ("chunk|contextual"): one engine add per way. */
  groups: Map<string, { chunk: boolean; contextual: boolean; docs: ImportDoc[] }>;
  /** Each document's feedback and quarantine from the file, put back once its text is in. */
  extras: NonNullable<ReturnType<typeof importExtras>>[];
}

/** The `model` member: the exporting model's identity and dimension (required together). */
function importModel(p: Obj): Pick<ImportPlan, 'identity' | 'dimension'> {
  const model = optObject(p, 'model');
  if (!model) return { identity: undefined, dimension: 0 };
  const identity = reqString(model, 'identity', 'model.identity', { nonEmpty: true });
  const dimension = optInt(model, 'dimension', 'model.dimension', { min: 1, max: 65_536 }) ?? 0;
  if (dimension === 0) throw new RcpError(ErrorCode.InvalidParams, 'model.dimension is required with model', { field: 'model.dimension' });
  return { identity, dimension };
}

/** Validates `documents[i].chunks`, keeping their vectors in the plan; true when its one chunk is the whole text. */
function readChunks(o: Obj, i: number, id: string, text: string, plan: ImportPlan): boolean {
  const chunks = optArray(o, 'chunks', `documents[${i}].chunks`) ?? [];
  let whole = chunks.length === 1;
  chunks.forEach((c, j) => {
    const field = `documents[${i}].chunks[${j}]`;
    const co = expectObject(c, field);
    const start = optInt(co, 'start', `${field}.start`, { min: 0 });
    const end = optInt(co, 'end', `${field}.end`, { min: 0 });
    if (start !== 0 || end !== text.length) whole = false;
    if (plan.identity === undefined || co.vector === undefined || start === undefined || end === undefined) return;
    plan.vectors.set(presetKey(id, start, end), decodeF32Base64(co.vector as string, plan.dimension, `${field}.vector`));
  });
  return whole;
}

/** Validates `documents[i]` into the plan. */
function readDocument(d: unknown, i: number, plan: ImportPlan): void {
  const o = expectObject(d, `documents[${i}]`);
  const id = reqString(o, 'id', `documents[${i}].id`, { nonEmpty: true });
  const text = reqString(o, 'text', `documents[${i}].text`);
  const meta = optObject(o, 'meta', `documents[${i}].meta`);
  const contextual = optBool(o, 'contextual', `documents[${i}].contextual`) ?? false;
  // One chunk spanning the whole text: indexed whole (a long text added unchunked stays one passage).
  const chunk = !readChunks(o, i, id, text, plan);
  const key = `${chunk}|${contextual}`;
  if (!plan.groups.has(key)) plan.groups.set(key, { chunk, contextual, docs: [] });
  plan.groups.get(key)!.docs.push(meta ? { id, text, meta } : { id, text });
  const extra = importExtras(o, id, `documents[${i}]`);
  if (extra) plan.extras.push(extra);
}

/** The params of `x-inpage/import`, validated (a typed -32602 naming the field otherwise). */
export function importPlan(p: Obj): ImportPlan {
  const docs = optArray(p, 'documents') ?? [];
  const plan: ImportPlan = { ...importModel(p), vectors: new Map(), groups: new Map(), extras: [] };
  docs.forEach((d, i) => readDocument(d, i, plan));
  return plan;
}

/** Runs a plan: an add per group (upserts by id), then the extras put back; logged once. */
export async function runImport(engine: ServedEngine, plan: ImportPlan, ctx: HandlerContext): Promise<InpageImportResult> {
  const { identity, dimension, vectors, groups, extras } = plan;
  const out: InpageImportResult = { ids: [], chunks: 0, vectorsReused: 0, indexVersion: '' };
  for (const g of groups.values()) {
    const r = await engine.add(g.docs, { chunk: g.chunk, contextual: g.contextual, signal: ctx.signal, vectors: identity !== undefined ? { identity, dimension, vectors } : undefined });
    out.ids.push(...r.ids);
    out.chunks += r.chunks;
    out.vectorsReused += r.vectorsReused ?? 0;
    out.indexVersion = r.indexVersion;
  }
  if (extras.length) await engine.restoreExtras(extras, { signal: ctx.signal });
  if (groups.size === 0 || extras.length) out.indexVersion = engine.stats().indexVersion;
  ctx.log('info', `x-inpage/import: ${out.ids.length} documents, ${out.chunks} chunks, ${out.vectorsReused} vectors reused`);
  return out;
}
