/**
 * The spec, inside the page: a section (§7.15, Appendix F) opens in a modal dialog from the copy
 * the build put in /rcp/ (tools/vite/rcp-reference.ts), so the lessons and the conformance
 * checker link into it offline. The dialog is native (<dialog>): Escape closes it, focus stays in
 * it and returns to the link that opened it. Text is rendered with text nodes only.
 */
import { el, type Child } from '../dom.ts';
import './learn.css';
import { inlines, sectionBlocks, specSections, type Block, type SpecSection } from './spec-text.ts';

declare const __RCP_REFERENCE__: { spec?: string } | undefined;

const SPEC_URL = typeof __RCP_REFERENCE__ === 'object' && __RCP_REFERENCE__?.spec ? __RCP_REFERENCE__.spec : '';

let sections: Promise<SpecSection[]> | undefined;
let dialog: HTMLDialogElement | undefined;

const load = (): Promise<SpecSection[]> =>
  (sections ??= fetch(SPEC_URL).then((r) => {
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return r.text().then(specSections);
  }));

function inline(text: string): Child[] {
  return inlines(text).map((i) => (i.kind === 'text' ? i.text : el(i.kind === 'code' ? 'code' : i.kind === 'strong' ? 'strong' : 'em', {}, i.text)));
}

function render(b: Block): HTMLElement {
  switch (b.kind) {
    case 'heading':
      return el(b.depth <= 3 ? 'h4' : 'h5', {}, b.text);
    case 'paragraph':
      return el('p', {}, ...inline(b.text));
    case 'code':
      return el('pre', { class: 'spec-code' }, b.text);
    case 'quote':
      return el('blockquote', {}, ...inline(b.text));
    case 'list':
      return el('ul', {}, ...b.items.map((t) => el('li', {}, ...inline(t))));
    case 'table': {
      const [head, ...rows] = b.rows;
      return el('div', { class: 'table-scroll' }, el('table', {}, el('thead', {}, el('tr', {}, ...(head ?? []).map((c) => el('th', { attrs: { scope: 'col' } }, ...inline(c))))), el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, ...inline(c))))))));
    }
  }
}

function ensureDialog(): HTMLDialogElement {
  if (dialog) return dialog;
  const d = el('dialog', { id: 'spec-dialog', class: 'spec-dialog', attrs: { 'aria-labelledby': 'spec-dialog-h' } });
  d.addEventListener('click', (ev) => {
    if (ev.target === d) d.close(); // a click on the backdrop
  });
  document.body.append(d);
  return (dialog = d);
}

/** Whether this build carries the spec (a clone without ../shared does not). */
export const specAvailable = (): boolean => SPEC_URL !== '';

/** Opens section `number` ("7.15", "F") in the dialog. */
export async function openSpec(number: string): Promise<void> {
  const d = ensureDialog();
  const close = el('button', { class: 'small', attrs: { type: 'button' }, on: { click: () => d.close() } }, 'Close');
  const heading = el('h3', { id: 'spec-dialog-h' }, `RCP/1 §${number}`);
  const body = el('div', { class: 'spec-body', attrs: { tabindex: 0 } }, 'Loading the spec…');
  d.replaceChildren(el('div', { class: 'pane-head' }, heading, close), body, el('p', { class: 'muted' }, 'From the RCP/1 specification (MIT), copied into this build. ', el('a', { attrs: { href: SPEC_URL, target: '_blank', rel: 'noopener' } }, 'Whole spec (markdown)')));
  if (!d.open) d.showModal();
  try {
    const all = await load();
    const s = all.find((x) => x.number === number);
    const blocks = sectionBlocks(all, number);
    if (!s || !blocks) throw new Error(`no section ${number}`);
    heading.textContent = `${/^\d/.test(number) ? '§' : 'Appendix '}${number} ${s.title}`;
    body.replaceChildren(...blocks.map(render));
  } catch (e) {
    body.replaceChildren(el('p', { class: 'error' }, `Could not show the spec: ${e instanceof Error ? e.message : String(e)}`));
  }
  close.focus();
}

/** A link to section `number` that opens it here; plain text when this build has no spec. */
export function specLink(number: string, label = /^\d/.test(number) ? `§${number}` : `Appendix ${number}`): HTMLElement {
  if (!specAvailable()) return el('span', { class: 'spec-ref' }, label);
  return el('a', { class: 'spec-ref', attrs: { href: `${SPEC_URL}#${number}`, 'aria-haspopup': 'dialog' }, on: { click: (ev) => (ev.preventDefault(), void openSpec(number)) } }, label);
}
