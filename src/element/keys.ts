/**
 * The keyboard shortcuts that open `<rcp-search dialog>`: Ctrl/⌘-K anywhere, and `/` unless the
 * key is being typed into something (a text field, a textarea, a select, contenteditable), as on
 * GitHub, MDN and most documentation sites.
 */

/** What is read of an event target (an Element, duck-typed so it can be tested without a DOM). */
interface TargetLike {
  tagName?: string;
  type?: string;
  isContentEditable?: boolean;
}

/** Input types that take no typed text: `/` over them is a shortcut. */
const NON_TEXT_INPUTS = new Set(['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range', 'reset', 'submit']);

/** Whether a key pressed with focus on `target` would be typed into it. */
export function isTextEntry(target: unknown): boolean {
  if (!target || typeof target !== 'object') return false;
  const t = target as TargetLike;
  if (t.isContentEditable) return true;
  const tag = t.tagName?.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && !NON_TEXT_INPUTS.has((t.type ?? 'text').toLowerCase());
}

/** What the fields of a keydown say about opening search. */
interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  isComposing?: boolean;
  defaultPrevented?: boolean;
}

/**
 * Whether keydown `ev`, whose innermost target (`composedPath()[0]`, inside shadow roots too) is
 * `target`, opens search.
 */
export function opensSearch(ev: KeyLike, target: unknown): boolean {
  if (ev.isComposing || ev.defaultPrevented) return false;
  if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === 'k') return true;
  return ev.key === '/' && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !isTextEntry(target);
}
