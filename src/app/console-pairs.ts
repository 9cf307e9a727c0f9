/**
 * Which answers a console text should get, so the history pairs each request with its response(s):
 * the ids of its requests (as JSON texts, so 1 and "1" differ), and whether an error with `id: null`
 * is due (not JSON, an empty batch `[]`, or an invalid member). Notifications expect nothing.
 */
export interface Expected {
  ids: string[];
  expectsNullId: boolean;
  /** It asks the server to shut the session down. */
  shutdown: boolean;
}

/** A sent text waiting for its answers, with the history row showing them. */
export interface Pending extends Expected {
  at: number;
  answers: Record<string, unknown>[];
  answer: HTMLElement;
  timing: HTMLElement;
  row: HTMLElement;
}

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

export function expectedAnswers(text: string): Expected {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { ids: [], expectsNullId: true, shutdown: false };
  }
  const out: Expected = { ids: [], expectsNullId: false, shutdown: false };
  const items = Array.isArray(msg) ? msg : [msg];
  if (Array.isArray(msg) && msg.length === 0) out.expectsNullId = true;
  for (const m of items) {
    const o = m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
    const valid = o !== undefined && o.jsonrpc === '2.0' && typeof o.method === 'string';
    if (o && isId(o.id)) out.ids.push(JSON.stringify(o.id));
    else if (!valid || (o && 'id' in o && o.id !== undefined)) out.expectsNullId = true; // invalid: answered with id null
    if (valid && o.method === 'shutdown') out.shutdown = true;
  }
  return out;
}
