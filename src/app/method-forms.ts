/**
 * "Build a request": a form per RCP/1 method, generated from the normative JSON Schema that the
 * build copied to /rcp/ (tools/vite/rcp-reference.ts), each with a link to its section of the
 * spec. Fields follow the schema exactly (required marked, inputs by type, choices from enums) and
 * start from a working example for the methods this server advertises. Sending puts the request in
 * the console and sends it there, so its answer lands in the console's history. Without the schema
 * (a clone built without ../shared) the forms stay hidden and say why.
 */
import { METHOD_GATES } from '../protocol/methods.ts';
import type { InitializeResult, Method } from '../protocol/types.ts';
import { byId, el } from './dom.ts';
import { errorView } from './errors.ts';
import { EXAMPLE_PARAMS } from './examples.ts';
import { type FieldSpec, fieldValue, formText, type MethodSpec, methodSpecs } from './schema-model.ts';

declare const __RCP_REFERENCE__: { schema: string; sections: string; spec?: string } | undefined;

interface SpecSection {
  number: string;
  title: string;
  url: string;
}

/** Where the build put the schema and the spec's section map ('' = absent). */
const reference = typeof __RCP_REFERENCE__ === 'object' && __RCP_REFERENCE__ ? __RCP_REFERENCE__ : { schema: '', sections: '' };

const DEFAULT_METHOD = 'retrieve';
const EXTRA_EXAMPLES: Record<string, unknown> = { 'notifications/cancel': { id: 1, reason: 'no longer needed' } };

function advertised(init: InitializeResult, method: string): boolean {
  if (method === 'notifications/cancel') return true;
  const gate = METHOD_GATES[method as Method];
  if (gate === undefined) return false;
  return gate === null || (init.capabilities as Record<string, unknown>)[gate] !== undefined;
}

/** One input for a field; `read` gives its text. */
function input(field: FieldSpec, id: string, text: string): { node: HTMLElement; read: () => string } {
  if (field.kind === 'enum' || field.kind === 'boolean') {
    const options = field.kind === 'boolean' ? [true, false] : (field.options ?? []);
    const select = el('select', { id }, el('option', { attrs: { value: '' } }, '(leave out)'), ...options.map((o) => el('option', { attrs: { value: String(o) } }, JSON.stringify(o))));
    select.value = text;
    return { node: select, read: () => select.value };
  }
  if (field.kind === 'json') {
    const area = el('textarea', { id, attrs: { rows: text.length > 60 ? 4 : 2, spellcheck: 'false', placeholder: 'JSON' } });
    area.value = text;
    return { node: area, read: () => area.value.trim() };
  }
  const box = el('input', { id, attrs: { type: field.kind === 'integer' || field.kind === 'number' ? 'number' : 'text', autocomplete: 'off', step: field.kind === 'number' ? 'any' : undefined, placeholder: field.kind === 'text-or-json' ? 'text, or JSON' : undefined } });
  if (field.kind === 'integer' || field.kind === 'number') {
    // The server judges the value (that is the lesson); the form only offers the schema's bounds as hints.
    if (field.minimum !== undefined) box.min = String(field.minimum);
    if (field.maximum !== undefined) box.max = String(field.maximum);
  }
  box.value = text;
  return { node: box, read: () => box.value };
}

/**
 * Mounts the forms in #schema-forms; `send(text)` sends a request text through the console.
 * Resolves once the schema is loaded (or known absent).
 */
export async function mountMethodForms(init: InitializeResult, send: (text: string) => void): Promise<void> {
  const section = byId('schema-forms');
  const absent = byId('schema-absent');
  if (!reference.schema) {
    section.hidden = true;
    absent.hidden = false;
    return;
  }
  let specs: MethodSpec[];
  let sections: Record<string, SpecSection> = {};
  try {
    specs = methodSpecs(await (await fetch(reference.schema)).json());
    if (reference.sections) sections = (await (await fetch(reference.sections)).json()) as Record<string, SpecSection>;
  } catch (e) {
    section.replaceChildren(errorView(e, 'Could not read the RCP schema'));
    return;
  }
  if (specs.length === 0) {
    section.hidden = true;
    absent.hidden = false;
    return;
  }
  // Advertised methods first; the others stay available (the server's error is a lesson too).
  specs.sort((a, b) => Number(advertised(init, b.method)) - Number(advertised(init, a.method)));
  const picker = byId<HTMLSelectElement>('schema-method');
  picker.replaceChildren(...specs.map((s) => el('option', { attrs: { value: s.method } }, advertised(init, s.method) ? s.method : `${s.method} (not advertised by this server)`)));
  picker.value = specs.some((s) => s.method === DEFAULT_METHOD) ? DEFAULT_METHOD : specs[0].method;
  const link = byId<HTMLAnchorElement>('schema-spec-link');
  const note = byId('schema-note');
  const fieldsBox = byId('schema-fields');
  const idBox = byId<HTMLInputElement>('schema-id');
  const error = byId('schema-error');
  let readers: { field: FieldSpec; read: () => string }[] = [];
  let current: MethodSpec = specs[0];

  const render = () => {
    current = specs.find((s) => s.method === picker.value) ?? specs[0];
    const sec = sections[current.method];
    link.hidden = !sec;
    if (sec) {
      link.href = sec.url;
      link.textContent = `§${sec.number} ${sec.title}`;
    }
    const isAdvertised = advertised(init, current.method);
    const example = isAdvertised ? ((EXAMPLE_PARAMS as Record<string, unknown>)[current.method] ?? EXTRA_EXAMPLES[current.method]) : undefined;
    note.textContent = current.notification
      ? 'A notification: it has no id and the server never answers it.'
      : isAdvertised
        ? ''
        : 'This server does not advertise this method: sending it shows the error the server answers with.';
    idBox.disabled = current.notification;
    error.replaceChildren();
    const fields: FieldSpec[] = current.shaped ? current.fields : [{ name: 'params', required: false, kind: 'json', type: 'object (the schema gives this method no params shape)' }];
    const values = (current.shaped ? example : { params: example }) as Record<string, unknown> | undefined;
    readers = [];
    fieldsBox.replaceChildren(
      ...fields.map((f) => {
        const id = `schema-field-${f.name}`;
        const box = input(f, id, formText(f, values?.[f.name]));
        readers.push({ field: f, read: box.read });
        return el(
          'div',
          { class: 'schema-field', attrs: { 'data-field': f.name } },
          el('label', { attrs: { for: id } }, el('code', {}, f.name), f.required ? el('span', { class: 'required' }, ' required') : el('span', { class: 'muted' }, ' optional'), ' ', el('span', { class: 'muted' }, f.type)),
          box.node,
        );
      }),
    );
    if (fields.length === 0) fieldsBox.replaceChildren(el('p', { class: 'muted' }, 'This method takes no params.'));
  };
  picker.addEventListener('change', render);
  render();

  byId<HTMLFormElement>('schema-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    error.replaceChildren();
    try {
      const params: Record<string, unknown> = {};
      for (const { field, read } of readers) {
        const v = fieldValue(field, read());
        if (v !== undefined) params[field.name] = v;
      }
      const body = current.shaped ? params : ((params.params as Record<string, unknown> | undefined) ?? undefined);
      const frame: Record<string, unknown> = { jsonrpc: '2.0' };
      if (!current.notification) frame.id = fieldValue({ name: 'id', required: true, kind: 'text-or-json', type: '' }, idBox.value.trim()) ?? 1;
      frame.method = current.method;
      if (body !== undefined && (current.paramsRequired || Object.keys(body).length > 0)) frame.params = body;
      send(JSON.stringify(frame, null, 2));
    } catch (e) {
      error.replaceChildren(errorView(e, 'Check the form'));
    }
  });
  section.hidden = false;
}
