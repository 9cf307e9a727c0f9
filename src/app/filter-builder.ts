/**
 * The filter builder: rows of field / operator / value generated from the advertised
 * `filter.fields` and `filter.operators`. Operators per field type follow the §8 table; values are
 * typed from the field type (numbers for int/float, booleans for bool, lists for in/nin).
 */
import { filterFieldTypes } from '../protocol/filter.ts';
import type { Capabilities, FilterFieldType, FilterNode, FilterOperator } from '../protocol/types.ts';
import { el } from './dom.ts';
import { plural } from './format.ts';

const ORDERED: FilterOperator[] = ['gt', 'gte', 'lt', 'lte'];
/** §8: the operators each field type allows (an untyped field allows all). */
const OPS_BY_TYPE: Readonly<Record<FilterFieldType | 'untyped', readonly FilterOperator[]>> = Object.freeze({
  keyword: ['eq', 'ne', 'in', 'nin', 'contains', 'exists'],
  text: ['contains', 'eq', 'ne', 'in', 'nin', 'exists'],
  int: ['eq', 'ne', ...ORDERED, 'in', 'nin', 'exists'],
  float: ['eq', 'ne', ...ORDERED, 'in', 'nin', 'exists'],
  date: ['eq', 'ne', ...ORDERED, 'in', 'nin', 'exists'],
  bool: ['eq', 'ne', 'exists'],
  geo: ['exists'],
  untyped: ['eq', 'ne', ...ORDERED, 'in', 'nin', 'contains', 'exists'],
});
const OP_LABEL: Readonly<Record<FilterOperator, string>> = Object.freeze({
  eq: 'is', ne: 'is not', gt: '>', gte: '≥', lt: '<', lte: '≤', in: 'is one of', nin: 'is none of', contains: 'contains', exists: 'exists',
});

interface Row {
  field: HTMLSelectElement;
  op: HTMLSelectElement;
  value: HTMLInputElement | HTMLSelectElement;
  node: HTMLElement;
}

export interface FilterBuilder {
  /** The filter tree for the current rows, or undefined when there are none; throws on a bad value. */
  value(): FilterNode | undefined;
  /** Number of rows. */
  size(): number;
  /** The active filter in words ("author is Lincoln and year ≥ 1950"), or '' when none. */
  describe(): string;
  /**
   * Replaces the rows with `filter` (a leaf, or one level of and/or over leaves, as `value()` builds);
   * returns false, leaving no rows, when the builder cannot show it (unknown field, deeper tree).
   */
  restore(filter: FilterNode): boolean;
}

/** A field's values in the index with document counts (x-inpage/facets), when the server offers them. */
export type SuggestValues = (field: string) => Promise<{ value: string | number | boolean; count: number }[]>;

/**
 * Mounts the builder into `host`; `onChange` fires on every edit. Hidden when nothing is filterable.
 * With `suggest`, keyword and text value boxes offer the index's own values with counts, since a
 * keyword filter matches exactly ("Abraham Lincoln", not "lincoln").
 */
export function mountFilterBuilder(host: HTMLElement, cap: Capabilities['filter'], onChange: () => void, suggest?: SuggestValues): FilterBuilder {
  const types = filterFieldTypes(cap);
  const names = Object.keys(types).sort();
  const allowed = new Set<FilterOperator>(cap?.operators ?? OPS_BY_TYPE.untyped);
  const rows: Row[] = [];
  const list = el('div', { class: 'filter-rows' });
  const combine = el('select', { attrs: { 'aria-label': 'Combine filters' } }, el('option', { attrs: { value: 'and' } }, 'all of'), el('option', { attrs: { value: 'or' } }, 'any of'));
  combine.addEventListener('change', onChange);
  let uid = 0;
  let listUid = 0;

  const opsFor = (field: string) => OPS_BY_TYPE[types[field] ?? 'untyped'].filter((o) => allowed.has(o));

  const valueInput = (field: string, op: FilterOperator, label: string): HTMLInputElement | HTMLSelectElement => {
    const type = types[field];
    if (op === 'exists' || (type === 'bool' && op !== 'in' && op !== 'nin')) {
      const s = el('select', { attrs: { 'aria-label': label } }, el('option', { attrs: { value: 'true' } }, op === 'exists' ? 'yes' : 'true'), el('option', { attrs: { value: 'false' } }, op === 'exists' ? 'no' : 'false'));
      return s;
    }
    const list = op === 'in' || op === 'nin';
    const input = el('input', { attrs: { 'aria-label': label, placeholder: list ? 'comma, separated' : type === 'date' ? 'YYYY-MM-DD' : 'value' } });
    if (!list && (type === 'int' || type === 'float')) input.type = 'number';
    if (!list && type === 'date') input.type = 'date';
    if (suggest && (type === 'keyword' || type === 'text' || type === undefined) && op !== 'contains') {
      const id = `filter-values-${++listUid}`;
      const options = el('datalist', { id });
      input.setAttribute('list', id);
      host.append(options); // a datalist may live anywhere in the document
      input.addEventListener('focus', () => {
        if (options.childElementCount > 0) return;
        void suggest(field)
          .then((values) => options.replaceChildren(...values.map((v) => el('option', { attrs: { value: String(v.value), label: plural(v.count, 'document') } }))))
          .catch(() => undefined); // suggestions are a convenience
      }, { once: true });
    }
    return input;
  };

  const addRow = (field = names[0] ?? '', initial?: { op: FilterOperator; text: string }) => {
    const n = ++uid;
    const fieldSel = el('select', { attrs: { 'aria-label': `Filter ${n} field` } }, ...names.map((f) => el('option', { attrs: { value: f } }, `${f}${types[f] ? ` (${types[f]})` : ''}`)));
    fieldSel.value = field;
    const opSel = el('select', { attrs: { 'aria-label': `Filter ${n} operator` } });
    const node = el('div', { class: 'filter-row', attrs: { role: 'group', 'aria-label': `Filter ${n}` } });
    const row: Row = { field: fieldSel, op: opSel, value: valueInput(field, 'eq', `Filter ${n} value`), node };
    const fillOps = () => {
      const ops = opsFor(fieldSel.value);
      const keep = ops.includes(opSel.value as FilterOperator) ? opSel.value : ops[0];
      opSel.replaceChildren(...ops.map((o) => el('option', { attrs: { value: o } }, OP_LABEL[o])));
      opSel.value = keep ?? '';
    };
    const fillValue = () => {
      const next = valueInput(fieldSel.value, opSel.value as FilterOperator, `Filter ${n} value`);
      next.addEventListener('input', onChange);
      row.value.replaceWith(next);
      row.value = next;
    };
    fillOps();
    if (initial && opsFor(field).includes(initial.op)) opSel.value = initial.op;
    fieldSel.addEventListener('change', () => {
      fillOps();
      fillValue();
      onChange();
    });
    opSel.addEventListener('change', () => {
      fillValue();
      onChange();
    });
    row.value = valueInput(fieldSel.value, opSel.value as FilterOperator, `Filter ${n} value`);
    if (initial) row.value.value = initial.text;
    row.value.addEventListener('input', onChange);
    const remove = el('button', { class: 'small', attrs: { type: 'button', 'aria-label': `Remove filter ${n}` } }, 'Remove');
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      node.remove();
      onChange();
    });
    node.append(fieldSel, opSel, row.value, remove);
    rows.push(row);
    list.append(node);
    if (!initial) fieldSel.focus();
  };

  const add = el('button', { class: 'small', attrs: { type: 'button' } }, 'Add filter');
  add.addEventListener('click', () => addRow());
  host.replaceChildren(el('div', { class: 'filter-head' }, el('span', {}, 'Match'), combine), list, add);
  host.hidden = names.length === 0;

  const leaf = (r: Row): FilterNode | undefined => {
    const field = r.field.value;
    const op = r.op.value as FilterOperator;
    const raw = r.value.value.trim();
    r.value.removeAttribute('aria-invalid');
    if (op === 'exists') return { field, op, value: raw === 'true' };
    // A number box holding "19e" reports an empty value: that is an error to show, not a filter to drop.
    if (r.value instanceof HTMLInputElement && r.value.validity.badInput) {
      r.value.setAttribute('aria-invalid', 'true');
      throw new Error(`The value of filter ${rows.indexOf(r) + 1} (${field}) is not a valid ${types[field] === 'int' ? 'whole number' : types[field] === 'date' ? 'date' : 'number'}.`);
    }
    if (raw === '') return undefined; // an unfinished row is ignored, not an error
    const type = types[field];
    const scalar = (s: string): unknown => {
      if (type === 'int' || type === 'float') {
        const v = Number(s);
        if (!Number.isFinite(v) || (type === 'int' && !Number.isInteger(v))) {
          r.value.setAttribute('aria-invalid', 'true');
          throw new Error(`“${s}” is not a ${type === 'int' ? 'whole number' : 'number'} (filter on ${field})`);
        }
        return v;
      }
      if (type === 'bool') return s === 'true';
      return s;
    };
    if (op === 'in' || op === 'nin') return { field, op, value: raw.split(',').map((s) => s.trim()).filter(Boolean).map(scalar) };
    return { field, op, value: scalar(raw) };
  };

  const clear = () => {
    for (const r of rows) r.node.remove();
    rows.length = 0;
  };

  return {
    restore(filter) {
      clear();
      const tree = filter as Record<string, unknown>;
      const group = Array.isArray(tree.and) ? 'and' : Array.isArray(tree.or) ? 'or' : undefined;
      const leaves = (group ? tree[group] : [filter]) as Record<string, unknown>[];
      const ok = leaves.every((l) => l && typeof l.field === 'string' && names.includes(l.field) && typeof l.op === 'string' && opsFor(l.field).includes(l.op as FilterOperator));
      if (!ok) return false;
      combine.value = group ?? 'and';
      for (const l of leaves) {
        const v = l.value;
        const text = Array.isArray(v) ? v.map(String).join(', ') : v === undefined ? '' : String(v);
        addRow(l.field as string, { op: l.op as FilterOperator, text });
      }
      return true;
    },
    value() {
      const leaves = rows.map(leaf).filter((x): x is FilterNode => x !== undefined);
      if (leaves.length === 0) return undefined;
      if (leaves.length === 1) return leaves[0];
      return combine.value === 'or' ? { or: leaves } : { and: leaves };
    },
    size: () => rows.length,
    describe() {
      const parts = rows.flatMap((r) => {
        const op = r.op.value as FilterOperator;
        const raw = r.value.value.trim();
        if (op !== 'exists' && raw === '') return [];
        return [`${r.field.value} ${OP_LABEL[op]} ${op === 'exists' ? (raw === 'true' ? '' : '(no)') : `“${raw}”`}`.trim()];
      });
      return parts.join(combine.value === 'or' ? ' or ' : ' and ');
    },
  };
}
