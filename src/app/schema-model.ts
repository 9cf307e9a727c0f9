/**
 * Reads the normative RCP/1 JSON Schema into one form description per method: which params exist,
 * which are required, and what kind of input each takes (from its type, enum, const or union).
 * Nothing here is invented: a method, field, type or choice appears only when the schema says so.
 * Pure data in, data out (no DOM), so it is tested in SchemaNode against the real schema.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type SchemaNode = { [k: string]: Json };

/** How a param is typed in: a plain scalar, a choice, text that may also be JSON, or raw JSON. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'text-or-json' | 'json';

export interface FieldSpec {
  name: string;
  required: boolean;
  kind: FieldKind;
  /** For `enum`: the allowed values, in schema order. */
  options?: (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  /** A short type description for the label ("integer ≥ 1", "FilterClause", "string | Content | Content[]"). */
  type: string;
  description?: string;
}

export interface MethodSpec {
  method: string;
  /** A notification (no id, never answered), e.g. notifications/cancel. */
  notification: boolean;
  /** Whether `params` itself is required. */
  paramsRequired: boolean;
  /** Whether the schema gives `params` a shape; when not, the form takes params as raw JSON. */
  shaped: boolean;
  /** The params' fields (none when unshaped or when the shape has no properties). */
  fields: FieldSpec[];
}

const isObj = (v: Json | undefined): v is SchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows local `$ref`s (`#/$defs/Name`). */
function resolve(schema: SchemaNode, node: Json | undefined, seen = 0): SchemaNode {
  if (!isObj(node)) return {};
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/') && seen < 20) {
    const defs = schema.$defs;
    const target = isObj(defs) ? defs[ref.slice('#/$defs/'.length)] : undefined;
    return resolve(schema, target, seen + 1);
  }
  return node;
}

const refName = (node: Json | undefined): string | undefined => (isObj(node) && typeof node.$ref === 'string' ? node.$ref.split('/').pop() : undefined);

const primitive = (v: Json): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A union's branches (oneOf/anyOf). */
const branches = (n: SchemaNode): Json[] => [...(Array.isArray(n.oneOf) ? n.oneOf : []), ...(Array.isArray(n.anyOf) ? n.anyOf : [])];

/** The scalar choices a node allows, when it allows nothing else (enum, const, or a union of them). */
function choices(schema: SchemaNode, node: Json | undefined): (string | number | boolean)[] | undefined {
  const n = resolve(schema, node);
  if (Array.isArray(n.enum) && n.enum.every(primitive)) return n.enum;
  if ('const' in n && primitive(n.const)) return [n.const];
  const bs = branches(n);
  if (bs.length === 0) return undefined;
  const out: (string | number | boolean)[] = [];
  for (const b of bs) {
    const c = choices(schema, b);
    if (!c) return undefined;
    out.push(...c);
  }
  return out;
}

function typeLabel(schema: SchemaNode, node: Json | undefined): string {
  const name = refName(node);
  const n = resolve(schema, node);
  if (name && !['RequestId'].includes(name) && (n.type === 'object' || n.properties || branches(n).length)) return name;
  if (Array.isArray(n.enum)) return n.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in n) return JSON.stringify(n.const);
  const bs = branches(n);
  if (bs.length) return bs.map((b) => typeLabel(schema, b)).join(' | ');
  if (Array.isArray(n.type)) return n.type.join(' | ');
  if (n.type === 'array') {
    const item = typeLabel(schema, n.items);
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  let t = typeof n.type === 'string' ? n.type : 'any JSON';
  if (typeof n.minimum === 'number') t += ` ≥ ${n.minimum}`;
  if (typeof n.maximum === 'number') t += ` ≤ ${n.maximum}`;
  return t;
}

function fieldOf(schema: SchemaNode, name: string, node: Json, required: boolean): FieldSpec {
  const n = resolve(schema, node);
  const field: FieldSpec = { name, required, kind: 'json', type: typeLabel(schema, node) };
  if (typeof n.description === 'string') field.description = n.description;
  if (typeof n.minimum === 'number') field.minimum = n.minimum;
  if (typeof n.maximum === 'number') field.maximum = n.maximum;
  const options = choices(schema, node);
  const types = Array.isArray(n.type) ? n.type : typeof n.type === 'string' ? [n.type] : [];
  if (options) {
    field.kind = 'enum';
    field.options = options;
  } else if (types.length === 1 && ['string', 'integer', 'number', 'boolean'].includes(types[0] as string)) {
    field.kind = types[0] as FieldKind;
  } else if (types.includes('string') || branches(n).some((b) => resolve(schema, b).type === 'string')) {
    field.kind = 'text-or-json'; // a union with a plain-string branch: text, or JSON for the other branches
  }
  return field;
}

function fieldsOf(schema: SchemaNode, paramsNode: Json | undefined): FieldSpec[] {
  const p = resolve(schema, paramsNode);
  const props = isObj(p.properties) ? p.properties : {};
  const required = new Set(Array.isArray(p.required) ? p.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(props).map(([name, node]) => fieldOf(schema, name, node, required.has(name)));
}

/** The `if {method: const M} then {params: …}` branches of a request or notification definition. */
function paramsByMethod(schema: SchemaNode, def: Json | undefined): Map<string, { params: Json | undefined; required: boolean }> {
  const out = new Map<string, { params: Json | undefined; required: boolean }>();
  const d = resolve(schema, def);
  for (const rule of Array.isArray(d.allOf) ? d.allOf : []) {
    if (!isObj(rule) || !isObj(rule.if) || !isObj(rule.if.properties)) continue;
    const m = rule.if.properties.method;
    if (!isObj(m) || typeof m.const !== 'string') continue;
    const then = resolve(schema, rule.then);
    const params = isObj(then.properties) ? then.properties.params : undefined;
    const required = Array.isArray(then.required) && then.required.includes('params');
    out.set(m.const, { params, required });
  }
  return out;
}

/** One spec per method the schema names: every request method, then client notifications with a params shape. */
export function methodSpecs(schemaJson: unknown): MethodSpec[] {
  if (!isObj(schemaJson as Json) || !isObj((schemaJson as SchemaNode).$defs)) return [];
  const schema = schemaJson as SchemaNode;
  const defs = schema.$defs as SchemaNode;
  // MethodName: the enum of RCP/1 methods (its other branch is the vendor pattern `x-…/`).
  const nameNode = resolve(schema, defs.MethodName);
  const names = [nameNode, ...branches(nameNode)].flatMap((b) => (isObj(b) && Array.isArray(b.enum) ? b.enum : [])).filter((m): m is string => typeof m === 'string');
  const requests = paramsByMethod(schema, defs.JsonRpcRequest);
  const out: MethodSpec[] = names.map((method) => {
    const r = requests.get(method);
    return { method, notification: false, paramsRequired: r?.required ?? false, shaped: r !== undefined, fields: r ? fieldsOf(schema, r.params) : [] };
  });
  // Client → server notifications (cancel); server → client ones (progress, log) are not sent from a console.
  const cancel = resolve(schema, defs.CancelNotification);
  const cancelProps = isObj(cancel.properties) ? cancel.properties : {};
  if (isObj(cancelProps.method) && typeof cancelProps.method.const === 'string') {
    out.push({ method: cancelProps.method.const, notification: true, paramsRequired: true, shaped: true, fields: fieldsOf(schema, cancelProps.params) });
  }
  return out;
}

/** What a field's input holds for `value` (an example), as the form shows it. */
export function formText(field: FieldSpec, value: unknown): string {
  if (value === undefined) return '';
  if (field.kind === 'json' || (field.kind === 'text-or-json' && typeof value !== 'string')) return JSON.stringify(value);
  return String(value);
}

/** A form input's text back to the param value; `undefined` = leave the param out. Throws on bad JSON. */
export function fieldValue(field: FieldSpec, text: string): unknown {
  if (text === '') return undefined;
  switch (field.kind) {
    case 'string':
      return text;
    case 'integer':
    case 'number':
      return Number(text); // sent as typed: the server, not the form, judges range and integrality
    case 'boolean':
      return text === 'true';
    case 'enum':
      return field.options?.find((o) => String(o) === text) ?? text;
    case 'text-or-json': {
      const t = text.trim();
      if (/^[[{]/.test(t) || /^-?\d/.test(t) || t === 'true' || t === 'false' || t === 'null') {
        try {
          return JSON.parse(t) as unknown;
        } catch {
          return text;
        }
      }
      return text;
    }
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(`${field.name}: not valid JSON`);
      }
  }
}
