/**
 * A JSON value pretty-printed into a <pre>, with the members a lesson points at wrapped in <mark>:
 * patterns are dot paths where `*` matches any key or index (`result.hits.*.score`). Built from
 * text nodes only, so a frame can never inject markup.
 */
import { el } from '../dom.ts';

/** Whether `path` matches one of `patterns` (each segment equal, or `*`). */
export function matchesPath(path: readonly string[], patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const parts = p.split('.');
    return parts.length === path.length && parts.every((s, i) => s === '*' || s === path[i]);
  });
}

function render(v: unknown, path: string[], patterns: readonly string[], indent: string, out: Node[]): void {
  const start = out.length;
  if (Array.isArray(v)) {
    if (v.length === 0) out.push(document.createTextNode('[]'));
    else {
      out.push(document.createTextNode('[\n'));
      v.forEach((x, i) => {
        out.push(document.createTextNode(`${indent}  `));
        render(x, [...path, String(i)], patterns, `${indent}  `, out);
        out.push(document.createTextNode(i < v.length - 1 ? ',\n' : '\n'));
      });
      out.push(document.createTextNode(`${indent}]`));
    }
  } else if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) out.push(document.createTextNode('{}'));
    else {
      out.push(document.createTextNode('{\n'));
      entries.forEach(([k, x], i) => {
        out.push(document.createTextNode(`${indent}  ${JSON.stringify(k)}: `));
        render(x, [...path, k], patterns, `${indent}  `, out);
        out.push(document.createTextNode(i < entries.length - 1 ? ',\n' : '\n'));
      });
      out.push(document.createTextNode(`${indent}}`));
    }
  } else out.push(document.createTextNode(JSON.stringify(v) ?? 'null'));
  if (path.length && matchesPath(path, patterns)) {
    const mark = el('mark', { class: 'hl', attrs: { 'data-path': path.join('.') } });
    mark.append(...out.splice(start));
    out.push(mark);
  }
}

/** `value` as a highlighted <pre>; `label` names it for screen readers. */
export function jsonView(value: unknown, patterns: readonly string[], label: string): HTMLPreElement {
  const nodes: Node[] = [];
  render(value, [], patterns, '', nodes);
  const pre = el('pre', { class: 'json-view', attrs: { tabindex: 0, 'aria-label': label } });
  pre.append(...nodes);
  return pre;
}
