import { echo, MAX_ECHO } from './limits.ts';
import { toEpochMs } from './dates.ts';
import { isObject as isRecord } from './json.ts';
import { invalidParams, optionUnsupported, type RcpError } from './errors.ts';
import type { Capabilities, FilterFieldType, FilterNode, FilterOperator } from './types.ts';

/**
 * §8 metadata filter validation. `validateFilter` turns untrusted JSON into a normalized
 * `FilterNode` tree or throws one precise RcpError:
 *
 * - `-32602` (`data.field` = JSON path of the offending member, `data.detail` = why) for a
 *   malformed node, an empty `and`/`or`, a non-string operator, an unadvertised field,
 *   an operator the field's type does not allow (path ends in `.op`), or a value whose JSON type
 *   does not fit the field type (path ends in `.value` or `.value[i]`). Example paths:
 *   `filter.and[1].value`, `filter.or[0].not.field`, `filter.in` (the node itself).
 * - `-32005` (`data.option` = `filter.op:<op>`) for an operator outside the advertised
 *   `filter.operators` (§12), including one RCP does not define, and (`data.option` = `filter`) when no `filter` capability exists.
 *
 * Normalization: unknown keys are dropped; a `null` member counts as absent (§4.6); `exists`
 * without a value means `exists: true`; every value on a `date` field (RFC 3339 string or
 * integer epoch ms, both accepted whatever `filter.dates` says) becomes an epoch-ms number.
 * Hostile input is bounded by FILTER_LIMITS and rejected with -32602, never a stack overflow.
 */

/** The ten operators RCP/1 defines (§8), in spec order. */
export const FILTER_OPERATORS: readonly FilterOperator[] = Object.freeze([
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'exists',
]);

/** The field types §8 defines; an advertised type outside this list is treated as untyped. */
export const FILTER_FIELD_TYPES: readonly FilterFieldType[] = Object.freeze([
  'keyword', 'text', 'int', 'float', 'bool', 'date', 'geo',
]);

/** Bounds on untrusted filters (§15.5): nesting depth, total nodes, members of an `in`/`nin` list. */
export const FILTER_LIMITS = Object.freeze({ maxDepth: 32, maxNodes: 1024, maxValues: 1024 });

const ORDERED = ['gt', 'gte', 'lt', 'lte'] as const;
const SET = ['in', 'nin'] as const;
/** §8 table: which operators each field type allows. Untyped fields allow all ten. */
const ALLOWED: Readonly<Record<FilterFieldType, ReadonlySet<FilterOperator>>> = Object.freeze({
  keyword: new Set<FilterOperator>(['eq', 'ne', ...SET, 'contains', 'exists']),
  text: new Set<FilterOperator>(['eq', 'ne', ...SET, 'contains', 'exists']),
  int: new Set<FilterOperator>(['eq', 'ne', ...ORDERED, ...SET, 'exists']),
  float: new Set<FilterOperator>(['eq', 'ne', ...ORDERED, ...SET, 'exists']),
  date: new Set<FilterOperator>(['eq', 'ne', ...ORDERED, ...SET, 'exists']),
  bool: new Set<FilterOperator>(['eq', 'ne', ...SET, 'exists']),
  geo: new Set<FilterOperator>(['exists']),
});

/** Field name → declared type; `undefined` = advertised but untyped (`fields` given as a list). */
export type FilterFieldTypes = Record<string, FilterFieldType | undefined>;

/**
 * The advertised fields of a `filter` capability as a prototype-free map. A name listed in an
 * array, or mapped to a type RCP does not define, is present with type `undefined`.
 */
export function filterFieldTypes(cap: Capabilities['filter'] | undefined): FilterFieldTypes {
  const out: FilterFieldTypes = Object.create(null);
  const fields = cap?.fields;
  if (Array.isArray(fields)) {
    for (const name of fields) if (typeof name === 'string') out[name] = undefined;
  } else if (fields && typeof fields === 'object') {
    for (const [name, type] of Object.entries(fields)) {
      out[name] = FILTER_FIELD_TYPES.includes(type) ? type : undefined;
    }
  }
  return out;
}

interface Ctx {
  fields: FilterFieldTypes;
  operators: ReadonlySet<string> | undefined;
  nodes: number;
}

/**
 * Validates and normalizes a §8 filter against the advertised `filter` capability. `path` is the
 * prefix of every `data.field` (default `filter`). Throws RcpError as described above; on
 * success the returned tree is fresh (never aliases `node`) and passes `compileFilter` unchanged.
 */
export function validateFilter(node: unknown, cap: Capabilities['filter'] | undefined, path = 'filter'): FilterNode {
  if (!cap) throw optionUnsupported('filter', 'the server did not advertise metadata filtering');
  const operators = Array.isArray(cap.operators) ? new Set<string>(cap.operators) : undefined;
  return walk(node, path, 1, { fields: filterFieldTypes(cap), operators, nodes: 0 });
}


/** An own, non-null member (§4.6: null is absent). */
const member = (o: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(o, key) && o[key] !== null ? o[key] : undefined;

function walk(node: unknown, path: string, depth: number, ctx: Ctx): FilterNode {
  if (depth > FILTER_LIMITS.maxDepth) throw invalidParams(path, `filter nests deeper than ${FILTER_LIMITS.maxDepth} levels`);
  if (++ctx.nodes > FILTER_LIMITS.maxNodes) throw invalidParams(path, `filter has more than ${FILTER_LIMITS.maxNodes} nodes`);
  if (!isRecord(node)) throw invalidParams(path, 'a filter node must be an object');
  const and = member(node, 'and'), or = member(node, 'or'), not = member(node, 'not');
  const leaf = member(node, 'field') !== undefined || member(node, 'op') !== undefined;
  const kinds = [and, or, not].filter((x) => x !== undefined).length + (leaf ? 1 : 0);
  if (kinds === 0) throw invalidParams(path, 'unknown filter node: expected and, or, not, or {field, op, value}');
  if (kinds > 1) throw invalidParams(path, 'ambiguous filter node: use exactly one of and, or, not, field/op');
  if (not !== undefined) return { not: walk(not, `${path}.not`, depth + 1, ctx) };
  if (and !== undefined) return { and: children(and, `${path}.and`, depth, ctx) };
  if (or !== undefined) return { or: children(or, `${path}.or`, depth, ctx) };
  return validateLeaf(node, path, ctx);
}

function children(list: unknown, path: string, depth: number, ctx: Ctx): FilterNode[] {
  if (!Array.isArray(list)) throw invalidParams(path, 'must be an array of filter nodes');
  if (list.length === 0) throw invalidParams(path, 'an empty and/or is not allowed (§8)');
  if (ctx.nodes + list.length > FILTER_LIMITS.maxNodes) {
    throw invalidParams(path, `filter has more than ${FILTER_LIMITS.maxNodes} nodes`);
  }
  return list.map((child, i) => walk(child, `${path}[${i}]`, depth + 1, ctx));
}

function validateLeaf(node: Record<string, unknown>, path: string, ctx: Ctx): FilterNode {
  const field = member(node, 'field');
  const op = member(node, 'op');
  if (typeof field !== 'string' || field === '') throw invalidParams(`${path}.field`, 'must be a non-empty string');
  if (typeof op !== 'string') throw invalidParams(`${path}.op`, 'must be a string');
  if (!Object.hasOwn(ctx.fields, field)) throw invalidParams(`${path}.field`, `field ${echo(field)} is not advertised`);
  // §8/§12: an operator outside the advertised set is -32005, also one RCP does not define (no
  // server can advertise it; absent `filter.operators` advertises the ten of §8).
  if (!(FILTER_OPERATORS as readonly string[]).includes(op) || (ctx.operators && !ctx.operators.has(op))) {
    throw optionUnsupported(`filter.op:${op.slice(0, MAX_ECHO)}`, `operator ${echo(op)} is not in the advertised filter.operators`);
  }
  const fop = op as FilterOperator;
  const type = ctx.fields[field];
  if (type && !ALLOWED[type].has(fop)) {
    throw invalidParams(`${path}.op`, `operator '${op}' is not allowed on ${type} field '${field}'`);
  }
  const value = checkValue(fop, type, member(node, 'value'), `${path}.value`, field);
  return { field, op: fop, value };
}

function checkValue(op: FilterOperator, type: FilterFieldType | undefined, value: unknown, at: string, field: string): unknown {
  if (op === 'exists') {
    if (value === undefined) return true;
    if (typeof value !== 'boolean') throw invalidParams(at, `exists takes a boolean, on field '${field}'`);
    return value;
  }
  if (value === undefined) throw invalidParams(at, `operator '${op}' requires a value, on field '${field}'`);
  if (op === 'in' || op === 'nin') {
    if (!Array.isArray(value)) throw invalidParams(at, `${op} takes an array of scalars, on field '${field}'`);
    if (value.length > FILTER_LIMITS.maxValues) {
      throw invalidParams(at, `${op} list longer than ${FILTER_LIMITS.maxValues} values`);
    }
    return value.map((v, i) => scalarFor(type, v, `${at}[${i}]`, field));
  }
  if (type === undefined && (ORDERED as readonly string[]).includes(op) && typeof value === 'boolean') {
    throw invalidParams(at, `${op} takes a number or a date, on field '${field}'`);
  }
  return scalarFor(type, value, at, field);
}

/** A scalar that fits `type`; dates come back as epoch ms. */
function scalarFor(type: FilterFieldType | undefined, v: unknown, at: string, field: string): unknown {
  const bad = (want: string): RcpError => invalidParams(at, `field '${field}'${type ? ` (${type})` : ''} needs ${want}`);
  switch (type) {
    case undefined:
      if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
      throw bad('a string, number or boolean');
    case 'keyword':
    case 'text':
      if (typeof v === 'string') return v;
      throw bad('a string');
    case 'int':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      throw bad('an integer');
    case 'float':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      throw bad('a number');
    case 'bool':
      if (typeof v === 'boolean') return v;
      throw bad('a boolean');
    case 'date': {
      const ms = toEpochMs(v);
      if (ms !== undefined) return ms;
      throw bad('an RFC 3339 string or integer epoch ms');
    }
    default:
      throw bad('no value (only exists applies)');
  }
}
