/**
 * The console sends raw frames over the page's own session, whose client numbers its requests
 * 1, 2, 3…. So that a hand-written id can never answer (or steal the answer of) one of the client's
 * requests, every valid request id (string or number) becomes a fresh `console-N`. Ids that are
 * not valid (null, objects, booleans) are sent as written: they show the server's -32600.
 */
export type ConsoleId = string | number | null;

let counter = 0;

/**
 * `text` with fresh ids, pretty-printed, and the ids whose answers to wait for (none for
 * notifications). Text that is not JSON is sent unchanged; the server answers it with id null.
 */
export function withFreshIds(text: string): { text: string; ids: ConsoleId[] } {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { text, ids: [null] }; // a parse error is answered with id null (§4.3)
  }
  const fix = (m: unknown): ConsoleId | undefined => {
    if (!m || typeof m !== 'object' || Array.isArray(m)) return null; // answered -32600 with id null
    const o = m as Record<string, unknown>;
    if (!('id' in o)) return undefined; // a notification
    if (typeof o.id === 'string' || typeof o.id === 'number') o.id = `console-${++counter}`;
    return typeof o.id === 'string' ? o.id : null;
  };
  const ids = (Array.isArray(msg) ? msg.map(fix) : [fix(msg)]).filter((x): x is ConsoleId => x !== undefined);
  return { text: JSON.stringify(msg, null, 2), ids };
}
