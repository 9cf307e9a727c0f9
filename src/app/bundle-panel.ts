/**
 * Opening a static index bundle (built by `rcp-in-page index`) in the playground: the page's
 * `?bundle=URL` makes the worker serve that bundle, read-only, instead of this browser's index.
 * The form under *Your documents* navigates there; in bundle mode the writing controls (import,
 * sample corpus, clear) are hidden, since the server does not advertise writes, and a note says
 * what is served with a way back.
 */
import { byId } from './dom.ts';

/** The bundle URL the page was opened with (`?bundle=`), resolved against the page. */
export function bundleParam(search = location.search): string | undefined {
  const raw = new URLSearchParams(search).get('bundle')?.trim();
  if (!raw) return undefined;
  try {
    return new URL(raw, location.href).href;
  } catch {
    return undefined;
  }
}

/** Wires the open-a-bundle form and, when `url` is served, switches the library to read-only. */
export function mountBundle(url: string | undefined): void {
  const form = byId<HTMLFormElement>('bundle-form');
  const input = byId<HTMLInputElement>('bundle-url');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const next = new URL(location.href);
    next.search = '';
    next.searchParams.set('bundle', input.value.trim());
    location.assign(next.href);
  });
  if (!url) return;
  input.value = url;
  for (const el of document.querySelectorAll<HTMLElement>('[data-writes]')) el.hidden = true;
  const note = byId('bundle-note');
  const back = document.createElement('a');
  back.href = location.pathname;
  back.textContent = 'back to this browser’s own index';
  note.replaceChildren(`Serving the bundle at ${url} (read-only: built ahead by rcp-in-page index) — `, back);
  note.hidden = false;
}
