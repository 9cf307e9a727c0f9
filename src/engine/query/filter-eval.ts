import { toEpochMs } from '../../protocol/dates.ts';
import type { FilterFieldType, FilterNode, FilterOperator } from '../../protocol/types.ts';

/**
 * Compiles a tree from `validateFilter` into a predicate over a document's `meta`. Semantics
 * (documented because §8 leaves them to the server):
 *
 * - A field is missing when `meta` has no own property of that name or it holds `null`/`undefined`.
 *   Missing ⇒ `eq`/`in`/`gt…`/`contains` false, `ne`/`nin` true, `exists:true` false.
 * - `ne` is exactly `not eq` and `nin` exactly `not in`.
 * - An array-valued meta field matches `eq`/`in`/ordered comparisons if any element matches.
 * - `contains`: on a string meta value, substring for `text` and untyped fields, equality for
 *   `keyword`; on an array meta value, element membership (`text`: any element has the substring).
 * - `date` fields compare as epoch ms; meta may hold RFC 3339 strings or epoch ms. An unparsable
 *   meta date matches nothing but `ne`/`nin`/`exists`.
 * - Strings compare case-sensitively; ordered string comparison (untyped fields) is by Unicode
 *   code point, which equals UTF-8 byte order (§8 "byte-ordered").
 * - Values are never coerced across JSON types: the string "2023" does not equal the number 2023.
 *
 * The tree is trusted to be validated (bounded depth), so recursion here is safe.
 */
export function compileFilter(
  node: FilterNode,
  fieldTypes: Record<string, FilterFieldType | undefined>,
): (meta: Record<string, unknown>) => boolean {
  if ('and' in node) {
    const parts = node.and.map((n) => compileFilter(n, fieldTypes));
    return (meta) => parts.every((p) => p(meta));
  }
  if ('or' in node) {
    const parts = node.or.map((n) => compileFilter(n, fieldTypes));
    return (meta) => parts.some((p) => p(meta));
  }
  if ('not' in node) {
    const inner = compileFilter(node.not, fieldTypes);
    return (meta) => !inner(meta);
  }
  return compileLeaf(node.field, node.op, node.value, Object.hasOwn(fieldTypes, node.field) ? fieldTypes[node.field] : undefined);
}

/** Unicode code-point order (= UTF-8 byte order), unlike `<` which compares UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!, y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

type Pred = (v: unknown) => boolean;

function compileLeaf(field: string, op: FilterOperator, value: unknown, type: FilterFieldType | undefined): (meta: Record<string, unknown>) => boolean {
  const read = (meta: Record<string, unknown>): unknown =>
    Object.hasOwn(meta, field) && meta[field] !== null ? meta[field] : undefined;
  if (op === 'exists') {
    const want = value !== false;
    return (meta) => (read(meta) !== undefined) === want;
  }
  if (op === 'contains') {
    const member: Pred = (x) => x === value;
    const scalar: Pred = type === 'keyword' || typeof value !== 'string' ? member : (x) => typeof x === 'string' && x.includes(value);
    const inArray: Pred = type === 'text' ? scalar : member;
    return (meta) => {
      const v = read(meta);
      return v !== undefined && (Array.isArray(v) ? v.some(inArray) : scalar(v));
    };
  }
  const norm = type === 'date' ? toEpochMs : (v: unknown): unknown => v;
  const elem = elementPredicate(op, value, norm);
  const negate = op === 'ne' || op === 'nin';
  return (meta) => {
    const v = read(meta);
    const hit = v !== undefined && (Array.isArray(v) ? v.some(elem) : elem(v));
    return negate ? !hit : hit;
  };
}

/** The test for one meta scalar (not `contains`/`exists`); for `ne`/`nin` the positive test. */
function elementPredicate(op: FilterOperator, value: unknown, norm: (v: unknown) => unknown): Pred {
  switch (op) {
    case 'eq':
    case 'ne':
      return (v) => norm(v) === value;
    case 'in':
    case 'nin': {
      const set = new Set(value as unknown[]);
      return (v) => {
        const x = norm(v);
        return x !== undefined && set.has(x);
      };
    }
    default:
      return orderedPredicate(op, value, norm);
  }
}

function orderedPredicate(op: FilterOperator, value: unknown, norm: (v: unknown) => unknown): Pred {
  const test = (c: number): boolean =>
    op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : op === 'lte' ? c <= 0 : false;
  return (v) => {
    const x = norm(v);
    if (typeof x === 'number' && typeof value === 'number') return !Number.isNaN(x) && test(x - value);
    if (typeof x === 'string' && typeof value === 'string') return test(compareCodePoints(x, value));
    return false;
  };
}
