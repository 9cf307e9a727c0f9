import { describe, expect, it } from 'vitest';
import { rcpError } from '../support/rcp-error.ts';
import { FILTER_LIMITS, FILTER_OPERATORS, filterFieldTypes, validateFilter } from '../../src/protocol/filter.ts';
import type { Capabilities, FilterFieldType, FilterNode, FilterOperator } from '../../src/protocol/types.ts';

type FilterCap = NonNullable<Capabilities['filter']>;

const TYPED: FilterCap = {
  fields: { kw: 'keyword', tx: 'text', i: 'int', f: 'float', b: 'bool', d: 'date', g: 'geo' },
};
const FIELD_OF: Record<FilterFieldType, string> = { keyword: 'kw', text: 'tx', int: 'i', float: 'f', bool: 'b', date: 'd', geo: 'g' };
const JAN1 = Date.UTC(2023, 0, 1);

const invalid = (node: unknown, cap: FilterCap = TYPED): string | undefined => {
  const err = rcpError(() => validateFilter(node, cap));
  expect(err.code).toBe(-32602);
  expect(typeof err.data?.detail).toBe('string');
  return err.data?.field;
};

/** §8 table: operators each field type allows. */
const ALLOWED: Record<FilterFieldType, FilterOperator[]> = {
  keyword: ['eq', 'ne', 'in', 'nin', 'contains', 'exists'],
  text: ['eq', 'ne', 'in', 'nin', 'contains', 'exists'],
  int: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists'],
  float: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists'],
  bool: ['eq', 'ne', 'in', 'nin', 'exists'],
  geo: ['exists'],
};
/** A scalar of the right JSON type per field type, and the normalized form. */
const GOOD: Record<FilterFieldType, [unknown, unknown]> = {
  keyword: ['en', 'en'],
  text: ['news', 'news'],
  int: [2023, 2023],
  float: [0.5, 0.5],
  date: ['2023-01-01T00:00:00Z', JAN1],
  bool: [true, true],
  geo: [undefined, undefined],
};
/** Values of the wrong JSON type per field type. */
const BAD: Record<FilterFieldType, unknown[]> = {
  keyword: [1, true, {}, ['en']],
  text: [1, false, {}],
  int: [1.5, '2023', true, 2 ** 60, {}],
  float: ['0.5', true, {}, []],
  date: ['yesterday', '2023-02-30', 1.5, true, {}],
  bool: ['true', 1, 0, {}],
  geo: [],
};

const TYPES = Object.keys(ALLOWED) as FilterFieldType[];
const matrix = TYPES.flatMap((t) => FILTER_OPERATORS.map((op) => [op, t, ALLOWED[t].includes(op)] as const));

function sample(op: FilterOperator, t: FilterFieldType): [unknown, unknown] {
  if (op === 'exists') return [true, true];
  const [v, n] = GOOD[t];
  return op === 'in' || op === 'nin' ? [[v, v], [n, n]] : [v, n];
}

describe('§8 operator × field type table', () => {
  it.each(matrix.filter(([, , ok]) => ok))('§8 %s on %s is accepted and normalized', (op, t) => {
    const [value, normalized] = sample(op, t);
    const out = validateFilter({ field: FIELD_OF[t], op, value }, TYPED);
    expect(out).toEqual({ field: FIELD_OF[t], op, value: normalized });
  });

  it.each(matrix.filter(([, , ok]) => !ok))('§8 %s on %s is -32602 at filter.op', (op, t) => {
    const value = op === 'in' || op === 'nin' ? [GOOD[t][0]] : (GOOD[t][0] ?? 1);
    expect(invalid({ field: FIELD_OF[t], op, value })).toBe('filter.op');
  });

  const badCases = matrix
    .filter(([op, , ok]) => ok && op !== 'exists')
    .flatMap(([op, t]) => BAD[t].map((v) => [op, t, v] as const));
  it.each(badCases)('§8 %s on %s with value %j is -32602 at filter.value', (op, t, v) => {
    const set = op === 'in' || op === 'nin';
    const field = invalid({ field: FIELD_OF[t], op, value: set ? [GOOD[t][0], v] : v });
    expect(field).toBe(set ? 'filter.value[1]' : 'filter.value');
  });

  it.each(TYPES)('§8 exists on %s takes a boolean only', (t) => {
    expect(validateFilter({ field: FIELD_OF[t], op: 'exists', value: false }, TYPED)).toEqual({ field: FIELD_OF[t], op: 'exists', value: false });
    for (const v of ['true', 1, {}]) expect(invalid({ field: FIELD_OF[t], op: 'exists', value: v })).toBe('filter.value');
  });

  it.each(['in', 'nin'] as const)('§8 %s requires an array', (op) => {
    expect(invalid({ field: 'kw', op, value: 'en' })).toBe('filter.value');
    expect(validateFilter({ field: 'kw', op, value: [] }, TYPED)).toEqual({ field: 'kw', op, value: [] });
  });

  it('§8 a date value accepts RFC 3339 and integer epoch ms, both normalized to ms', () => {
    const at = (value: unknown): unknown => (validateFilter({ field: 'd', op: 'gte', value }, TYPED) as { value: unknown }).value;
    expect(at('2023-01-01T02:00:00+02:00')).toBe(JAN1);
    expect(at('2023-01-01')).toBe(JAN1);
    expect(at(JAN1)).toBe(JAN1);
    expect(validateFilter({ field: 'd', op: 'in', value: ['2023-01-01T00:00:00Z', 0] }, TYPED)).toEqual({ field: 'd', op: 'in', value: [JAN1, 0] });
  });

  it('§8 a value is required for every operator but exists', () => {
    for (const op of FILTER_OPERATORS.filter((o) => o !== 'exists')) {
      const f = op === 'contains' ? 'tx' : 'i';
      expect(invalid({ field: f, op })).toBe('filter.value');
      expect(invalid({ field: f, op, value: null })).toBe('filter.value'); // §4.6 null = absent
    }
    expect(validateFilter({ field: 'kw', op: 'exists' }, TYPED)).toEqual({ field: 'kw', op: 'exists', value: true });
  });
});

describe('§8 untyped fields (fields advertised as a list)', () => {
  const LIST: FilterCap = { fields: ['lang', 'year'] };
  it('§8 eq/ne/contains accept any scalar; objects and arrays are -32602', () => {
    for (const op of ['eq', 'ne', 'contains'] as const) {
      for (const v of ['en', 3, 2.5, false]) expect(validateFilter({ field: 'lang', op, value: v }, LIST)).toEqual({ field: 'lang', op, value: v });
      for (const v of [{}, ['en']]) expect(invalid({ field: 'lang', op, value: v }, LIST)).toBe('filter.value');
    }
  });
  it('§8 ordered comparison takes a number or a date string, never a boolean', () => {
    expect(validateFilter({ field: 'year', op: 'gt', value: 2020 }, LIST)).toEqual({ field: 'year', op: 'gt', value: 2020 });
    expect(validateFilter({ field: 'year', op: 'lt', value: '2020-01-01' }, LIST)).toEqual({ field: 'year', op: 'lt', value: '2020-01-01' });
    expect(invalid({ field: 'year', op: 'gte', value: true }, LIST)).toBe('filter.value');
  });
  it('§8 in takes scalars only', () => {
    expect(invalid({ field: 'lang', op: 'in', value: ['en', ['fr']] }, LIST)).toBe('filter.value[1]');
  });
  it('§8 an advertised type RCP does not define is treated as untyped', () => {
    const cap = { fields: { x: 'uuid' } } as unknown as FilterCap;
    expect(filterFieldTypes(cap)).toEqual({ x: undefined });
    expect(validateFilter({ field: 'x', op: 'gt', value: 1 }, cap)).toEqual({ field: 'x', op: 'gt', value: 1 });
  });
});

describe('§8 fields, operators and errors', () => {
  it('§8 the spec example validates', () => {
    const cap: FilterCap = { fields: { lang: 'keyword', year: 'int', tag: 'keyword' } };
    const f = { and: [{ field: 'lang', op: 'eq', value: 'en' }, { or: [{ field: 'year', op: 'gte', value: 2023 }, { field: 'tag', op: 'in', value: ['news', 'blog'] }] }] };
    expect(validateFilter(f, cap)).toEqual(f);
  });

  it('§8 an unadvertised field is -32602 with data.field', () => {
    expect(invalid({ field: 'secret', op: 'eq', value: 'x' })).toBe('filter.field');
    expect(invalid({ field: 'secret', op: 'eq', value: 'x' }, { fields: ['lang'] })).toBe('filter.field');
    expect(invalid({ and: [{ field: 'kw', op: 'eq', value: 'x' }, { not: { field: 'nope', op: 'exists' } }] })).toBe('filter.and[1].not.field');
  });

  it('§8 prototype names are not advertised fields', () => {
    for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      expect(invalid({ field: name, op: 'exists' })).toBe('filter.field');
    }
  });

  it('§8 an operator outside filter.operators is -32005 with data.option filter.op:<op>', () => {
    const cap: FilterCap = { ...TYPED, operators: ['eq', 'in'] };
    const err = rcpError(() => validateFilter({ or: [{ field: 'kw', op: 'eq', value: 'a' }, { field: 'tx', op: 'contains', value: 'b' }] }, cap));
    expect(err.code).toBe(-32005);
    expect(err.data?.option).toBe('filter.op:contains');
    expect(validateFilter({ field: 'kw', op: 'in', value: ['a'] }, cap)).toBeTruthy();
  });

  it('§8/§12 an operator string RCP does not define is outside every advertised set: -32005 filter.op:<op>; a non-string op is -32602', () => {
    const unsupported = (node: unknown, cap: FilterCap = TYPED) => {
      const err = rcpError(() => validateFilter(node, cap));
      expect(err.code).toBe(-32005);
      return err.data?.option;
    };
    expect(unsupported({ field: 'kw', op: 'like', value: 'a%' }, { ...TYPED, operators: ['eq', 'like'] } as unknown as FilterCap)).toBe('filter.op:like');
    expect(unsupported({ field: 'kw', op: 'EQ', value: 'a' })).toBe('filter.op:EQ'); // §4.6 enums are case-sensitive
    expect(unsupported({ field: 'kw', op: 'regex', value: 'a' }, { ...TYPED, operators: undefined } as unknown as FilterCap)).toBe('filter.op:regex');
    expect(invalid({ field: 'kw', op: 7, value: 'a' })).toBe('filter.op');
  });

  it('§8 empty and/or is -32602', () => {
    expect(invalid({ and: [] })).toBe('filter.and');
    expect(invalid({ or: [] })).toBe('filter.or');
    expect(invalid({ not: { and: [] } })).toBe('filter.not.and');
  });

  it('§8 unknown, malformed or ambiguous node shapes are -32602', () => {
    expect(invalid({ foo: 1 })).toBe('filter');
    expect(invalid({})).toBe('filter');
    expect(invalid([{ field: 'kw', op: 'exists' }])).toBe('filter');
    expect(invalid('lang = en')).toBe('filter');
    expect(invalid(null)).toBe('filter');
    expect(invalid({ and: { field: 'kw', op: 'exists' } })).toBe('filter.and');
    expect(invalid({ and: [{ field: 'kw', op: 'exists' }], or: [{ field: 'kw', op: 'exists' }] })).toBe('filter');
    expect(invalid({ not: { field: 'kw', op: 'exists' }, field: 'kw', op: 'exists' })).toBe('filter');
    expect(invalid({ not: [{ field: 'kw', op: 'exists' }] })).toBe('filter.not');
    expect(invalid({ field: '', op: 'exists' })).toBe('filter.field');
    expect(invalid({ op: 'exists' })).toBe('filter.field');
    expect(invalid({ and: [{ field: 'kw', op: 'exists' }, 3] })).toBe('filter.and[1]');
  });

  it('§8 nested paths name the offending member', () => {
    const f = { and: [{ field: 'kw', op: 'eq', value: 'x' }, { or: [{ field: 'i', op: 'gt', value: 'high' }] }] };
    expect(invalid(f)).toBe('filter.and[1].or[0].value');
    expect(rcpError(() => validateFilter(f, TYPED, 'params.filter')).data?.field).toBe('params.filter.and[1].or[0].value');
  });

  it('§8 no filter capability is -32005 option filter', () => {
    const err = rcpError(() => validateFilter({ field: 'kw', op: 'exists' }, undefined));
    expect(err.code).toBe(-32005);
    expect(err.data?.option).toBe('filter');
  });

  it('§4.6 normalization drops unknown keys, reads null as absent, never aliases the input', () => {
    const input = { and: [{ field: 'kw', op: 'eq', value: 'x', 'x-acme': 1, note: 'hi' }], or: null, 'x-acme-hint': true };
    const out = validateFilter(input, TYPED);
    expect(out).toEqual({ and: [{ field: 'kw', op: 'eq', value: 'x' }] });
    (out as { and: FilterNode[] }).and.push({ field: 'kw', op: 'exists' });
    expect(input.and).toHaveLength(1);
  });
});

describe('§15.5 hostile filters', () => {
  const leaf = { field: 'kw', op: 'eq', value: 'x' };
  const nestNot = (depth: number): unknown => {
    let n: unknown = leaf;
    for (let i = 1; i < depth; i++) n = { not: n };
    return n;
  };

  it(`§8 nesting up to ${FILTER_LIMITS.maxDepth} levels is accepted, one more is -32602`, () => {
    expect(() => validateFilter(nestNot(FILTER_LIMITS.maxDepth), TYPED)).not.toThrow();
    const err = rcpError(() => validateFilter(nestNot(FILTER_LIMITS.maxDepth + 1), TYPED));
    expect(err.code).toBe(-32602);
    expect(err.data?.detail).toMatch(/deeper/);
  });

  it('§15.5 depth 10000 (built programmatically) is -32602, not a stack overflow', () => {
    let n: unknown = leaf;
    for (let i = 0; i < 10_000; i++) n = i % 2 ? { not: n } : { and: [n] };
    expect(rcpError(() => validateFilter(n, TYPED)).code).toBe(-32602);
  });

  it('§15.5 a cyclic object is -32602, not an infinite loop', () => {
    const cyc: { not?: unknown } = {};
    cyc.not = cyc;
    expect(rcpError(() => validateFilter(cyc, TYPED)).code).toBe(-32602);
  });

  it('§15.5 100k sibling nodes are -32602', () => {
    const f = { or: Array.from({ length: 100_000 }, () => leaf) };
    const t0 = performance.now();
    expect(rcpError(() => validateFilter(f, TYPED)).data?.detail).toMatch(/nodes/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('§15.5 100k nodes spread over many small groups are -32602', () => {
    const f = { and: Array.from({ length: 1000 }, () => ({ or: Array.from({ length: 100 }, () => leaf) })) };
    expect(rcpError(() => validateFilter(f, TYPED)).data?.detail).toMatch(/nodes/);
  });

  it(`§15.5 exactly ${FILTER_LIMITS.maxNodes} nodes pass, one more fails`, () => {
    const ok = { and: Array.from({ length: FILTER_LIMITS.maxNodes - 1 }, () => leaf) };
    expect(() => validateFilter(ok, TYPED)).not.toThrow();
    const over = { and: Array.from({ length: FILTER_LIMITS.maxNodes }, () => leaf) };
    expect(rcpError(() => validateFilter(over, TYPED)).code).toBe(-32602);
  });

  it('§15.5 an in-list longer than the limit is -32602', () => {
    const value = Array.from({ length: FILTER_LIMITS.maxValues + 1 }, (_, i) => `v${i}`);
    expect(invalid({ field: 'kw', op: 'in', value })).toBe('filter.value');
  });
});
