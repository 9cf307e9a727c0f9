import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fieldValue, formText, methodSpecs } from '../../src/app/schema-model.ts';
import { EXAMPLE_PARAMS } from '../../src/app/examples.ts';
import { SCHEMA_PATH, loadRcpSchema } from '../../tools/lib/rcp-schema.ts';

const schema = existsSync(SCHEMA_PATH) ? (JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as unknown) : undefined;

describe('schema forms: one form per method, from the normative schema only', () => {
  it('lists every RCP/1 method and the cancel notification', () => {
    const names = methodSpecs(schema).map((s) => s.method);
    for (const m of ['initialize', 'info', 'ping', 'shutdown', 'retrieve', 'index/add', 'index/delete', 'embed', 'rerank', 'query/transform']) expect(names).toContain(m);
    expect(names).toContain('notifications/cancel');
    expect(names.some((n) => n.startsWith('x-'))).toBe(false); // the vendor pattern is not a method
  });

  it('takes required params, types and enums from the schema', () => {
    const retrieve = methodSpecs(schema).find((s) => s.method === 'retrieve')!;
    expect(retrieve.paramsRequired).toBe(true);
    const f = Object.fromEntries(retrieve.fields.map((x) => [x.name, x]));
    expect(f.query).toMatchObject({ required: true, kind: 'text-or-json' });
    expect(f.k).toMatchObject({ required: true, kind: 'integer', minimum: 1 });
    expect(f.mode).toMatchObject({ required: false, kind: 'enum', options: ['dense', 'sparse', 'hybrid'] });
    expect(f.rewrite.options).toContain(false); // enum ∪ const false
    expect(f.filter).toMatchObject({ kind: 'json', type: 'FilterClause' });
    expect(f.includeText.kind).toBe('boolean');
    const info = methodSpecs(schema).find((s) => s.method === 'info')!;
    expect(info.shaped).toBe(false);
  });

  it('the prefilled examples survive the form round trip and validate against the schema', () => {
    const v = loadRcpSchema();
    for (const spec of methodSpecs(schema)) {
      const example = (EXAMPLE_PARAMS as Record<string, unknown>)[spec.method] as Record<string, unknown> | undefined;
      if (!example || !spec.shaped) continue;
      const params: Record<string, unknown> = {};
      for (const f of spec.fields) {
        const back = fieldValue(f, formText(f, example[f.name]));
        if (back !== undefined) params[f.name] = back;
      }
      for (const [k, val] of Object.entries(example)) if (spec.fields.some((f) => f.name === k)) expect(params[k], `${spec.method}.${k}`).toEqual(val);
      expect(v.frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: spec.method, params })), spec.method).toEqual([]);
    }
  });

  it('reads nothing from a missing or foreign schema', () => {
    expect(methodSpecs(undefined)).toEqual([]);
    expect(methodSpecs({ title: 'not RCP' })).toEqual([]);
  });

  it('text-or-json sends text as a string and JSON as JSON; bad JSON is an error', () => {
    const f = { name: 'query', required: true, kind: 'text-or-json' as const, type: '' };
    expect(fieldValue(f, 'white whale')).toBe('white whale');
    expect(fieldValue(f, '{"type":"text","text":"x"}')).toEqual({ type: 'text', text: 'x' });
    expect(fieldValue(f, '42')).toBe(42);
    expect(() => fieldValue({ ...f, kind: 'json' }, '{oops')).toThrow(/not valid JSON/);
  });
});
