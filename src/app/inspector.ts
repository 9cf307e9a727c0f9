/**
 * The protocol inspector: every frame of the page's RCP sessions (its own, the console's, the
 * tour's, and — on request — the import session's background traffic), live, with direction,
 * kind, method, id, latency and size; filterable by direction, method, id, errors and text; shown
 * as a list or as a sequence (client and server lanes, progress and cancel marked); a large frame
 * opens folded (its first few KB, the rest on request); one frame or all shown frames copyable
 * (NDJSON). Frame text is shown with textContent only; older frames are folded by the log (their
 * full text is read back when opened or copied).
 */
import { byId, copyText, el, formatBytes } from './dom.ts';
import { type FrameLog, type FrameRecord, toNdjson } from './frame-log.ts';
import { count as formatCount } from './format.ts';

const MAX_ROWS = 2000;
/** At most this many rows per idle callback while the pane is closed (each is a dozen elements). */
const HIDDEN_ROWS_PER_IDLE = 12;
/** How long one idle callback may draw hidden rows (one row of a large frame takes a few ms). */
const HIDDEN_SLICE_MS = 4;
const MAX_SHOWN_CHARS = 200_000;
/** A frame longer than this opens folded: its first part, and a button for the rest. */
export const FOLD_CHARS = 8_000;

function pretty(text: string): string {
  const shown = text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) : text;
  let out = shown;
  if (shown === text) {
    try {
      out = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* not JSON: show as sent */
    }
  }
  return text.length > MAX_SHOWN_CHARS ? `${out}\n… (${text.length - MAX_SHOWN_CHARS} more characters; use Copy)` : out;
}

export function mountInspector(log: FrameLog): void {
  const list = byId<HTMLOListElement>('frames');
  const dirSel = byId<HTMLSelectElement>('insp-dir');
  const methodIn = byId<HTMLInputElement>('insp-method');
  const textIn = byId<HTMLInputElement>('insp-text');
  const count = byId('insp-count');
  const follow = byId<HTMLInputElement>('insp-follow');
  const background = byId<HTMLInputElement>('insp-background');
  const idIn = byId<HTMLInputElement>('insp-id');
  const errorsOnly = byId<HTMLInputElement>('insp-errors');
  const view = byId<HTMLSelectElement>('insp-view');
  const rows = new Map<HTMLLIElement, FrameRecord>();

  const matches = (r: FrameRecord): boolean => {
    if ((r.session === 'import' || r.session === 'sample') && !background.checked) return false; // import batches would bury the user's own frames
    if (dirSel.value !== 'all' && r.direction !== dirSel.value) return false;
    const m = methodIn.value.trim().toLowerCase();
    if (m && !(r.method ?? '').toLowerCase().includes(m)) return false;
    const id = idIn.value.trim();
    if (id && String(r.id ?? '') !== id && JSON.stringify(r.id ?? '') !== id) return false;
    if (errorsOnly.checked && r.kind !== 'error' && r.kind !== 'invalid') return false;
    const t = textIn.value.trim().toLowerCase();
    if (t && !(r.text ?? r.preview).toLowerCase().includes(t)) return false; // folded frames: by their preview
    return true;
  };
  const shown = () => [...rows].filter(([li]) => !li.hidden).map(([, r]) => r);
  const updateCount = () => {
    count.textContent = `${shown().length} of ${log.records.length} frames`;
  };

  const row = (r: FrameRecord): HTMLLIElement => {
    const arrow = r.direction === 'out' ? '→' : '←';
    const label = `${arrow} ${r.kind} ${r.method ?? ''}${r.id !== undefined ? ` #${String(r.id)}` : ''}${r.session !== 'page' ? ` (${r.session})` : ''}`;
    const pre = el('pre', { class: 'frame-json' });
    const unfold = el('button', { class: 'small', attrs: { type: 'button' } }, `Show the whole frame (${formatBytes(r.bytes)})`);
    unfold.hidden = true;
    const open = async () => {
      if (pre.textContent) return;
      pre.textContent = 'Reading the frame…';
      const text = pretty(await log.fullText(r));
      if (text.length <= FOLD_CHARS) return void (pre.textContent = text);
      pre.textContent = `${text.slice(0, FOLD_CHARS)}\n… folded: ${formatCount(text.length - FOLD_CHARS)} more characters`;
      unfold.hidden = false;
      unfold.onclick = () => {
        pre.textContent = text;
        unfold.hidden = true;
        pre.focus();
      };
    };
    const details = el(
      'details',
      { on: { toggle: () => void (details.open && open()) } },
      el(
        'summary',
        {},
        el('span', { class: 'frame-time' }, `${(r.at / 1000).toFixed(3)}s`),
        ' ',
        el('span', { class: 'frame-label' }, label),
        ' ',
        el('span', { class: 'frame-meta' }, [formatBytes(r.bytes), r.latencyMs !== undefined ? `${r.latencyMs.toFixed(1)} ms` : ''].filter(Boolean).join(' · ')),
      ),
      pre,
      unfold,
    );
    const copy = el('button', { class: 'small', attrs: { type: 'button', 'aria-label': `Copy frame ${r.seq}` }, on: { click: () => void log.fullText(r).then(copyText) } }, 'Copy');
    const li = el('li', { class: `dir-${r.direction} kind-${r.kind}`, attrs: { 'data-method': r.method ?? '', 'data-seq': r.seq } }, details, copy);
    li.hidden = !matches(r);
    return li;
  };

  // Frames are not drawn one by one as they come: an import or the sample seeding sends dozens a
  // second, and each drawn row, scroll and count forced style and layout on the main thread. With
  // the pane open they are drawn once per animation frame; closed, a few at a time while the page
  // is idle (so the rows exist, without long tasks).
  const pane = byId('inspector-pane');
  let queued: FrameRecord[] = [];
  /** Draws the queued rows while `more(drawn)` says so (at least one). */
  const draw = (more: (drawn: number) => boolean) => {
    const fresh = document.createDocumentFragment();
    let shownFresh = false;
    for (let drawn = 0; queued.length > 0 && (drawn === 0 || more(drawn)); drawn++) {
      const r = queued.shift()!;
      if (r.seq < log.oldestSeq) continue;
      const li = row(r);
      rows.set(li, r);
      fresh.append(li);
      shownFresh ||= !li.hidden;
    }
    list.append(fresh);
    // Rows follow the log's own bounds (so their frame texts can be freed) and MAX_ROWS.
    for (let first = list.firstElementChild as HTMLLIElement | null; first; first = list.firstElementChild as HTMLLIElement | null) {
      const rec = rows.get(first);
      if (rows.size <= MAX_ROWS && rec && rec.seq >= log.oldestSeq) break;
      rows.delete(first);
      first.remove();
    }
    if (follow.checked && shownFresh && !pane.hidden) list.scrollTop = list.scrollHeight;
    updateCount();
  };
  let frameDue = false;
  let idleDue = false;
  const schedule = () => {
    if (queued.length === 0) return;
    if (!pane.hidden || typeof requestIdleCallback !== 'function') {
      if (frameDue) return;
      frameDue = true;
      // The next animation frame, or 200 ms where frames are not drawn (a tab in the background).
      let done = false;
      const run = () => void (done || ((done = true), (frameDue = false), draw(() => true), schedule()));
      requestAnimationFrame(run);
      setTimeout(run, 200);
    } else if (!idleDue) {
      idleDue = true;
      requestIdleCallback(
        (deadline) => {
          idleDue = false;
          // Row by row within the idle period (or a short slice when the timeout fired): never a long task.
          const until = performance.now() + (deadline.didTimeout ? HIDDEN_SLICE_MS : Math.min(HIDDEN_SLICE_MS, deadline.timeRemaining()));
          draw((drawn) => drawn < HIDDEN_ROWS_PER_IDLE && performance.now() < until);
          schedule();
        },
        { timeout: 1000 },
      );
    }
  };
  // Frames logged before the inspector was mounted (the page mounts it after starting the engine).
  queued = log.records.slice(-MAX_ROWS);
  schedule();
  log.subscribe((r) => {
    if (queued.push(r) > 2 * MAX_ROWS) queued = queued.slice(-MAX_ROWS); // only the newest are drawn
    schedule();
  });
  new MutationObserver(schedule).observe(pane, { attributes: true, attributeFilter: ['hidden'] });

  const refilter = () => {
    for (const [li, r] of rows) li.hidden = !matches(r);
    updateCount();
  };
  for (const input of [dirSel, methodIn, textIn, idIn]) input.addEventListener('input', refilter);
  for (const box of [background, errorsOnly]) box.addEventListener('change', refilter);
  // Sequence: the same rows laid out in client and server lanes (CSS), with the lanes named.
  const applyView = () => {
    list.classList.toggle('sequence', view.value === 'sequence');
    list.setAttribute('aria-label', view.value === 'sequence' ? 'RCP frames in sequence: sent by the client on the left, by the server on the right' : 'RCP frames');
  };
  view.addEventListener('change', applyView);
  applyView();
  byId('insp-copy-all').addEventListener('click', () => void Promise.all(shown().map((r) => log.fullText(r))).then((texts) => copyText(toNdjson(texts))));
  byId('insp-clear').addEventListener('click', () => {
    queued = [];
    rows.clear();
    list.replaceChildren();
    log.clear();
    updateCount();
  });
  updateCount();
}
