/**
 * Session recordings as NDJSON: a header line, then one line per frame as it travelled
 * (`{"t": ms, "dir": "out"|"in", "session", "frame": "<the exact JSON text>"}`), so a recording
 * replays byte for byte. Only RCP frames are recorded: HTTP headers (a bearer token) never are.
 * Also the comparison of a recorded answer with a replayed one. Pure: no DOM.
 */

export interface RecordedFrame {
  t: number;
  dir: 'out' | 'in';
  session: string;
  frame: string;
}

export interface Recording {
  created?: string;
  /** The server the recording was made against (its `initialize.result.server`), when known. */
  server?: { name?: unknown; version?: unknown };
  frames: RecordedFrame[];
}

export const RECORDING_FORMAT = 'rcp-recording/1';

export function toNdjsonRecording(r: Recording): string {
  const head = JSON.stringify({ format: RECORDING_FORMAT, created: r.created ?? new Date().toISOString(), ...(r.server ? { server: r.server } : {}) });
  return [head, ...r.frames.map((f) => JSON.stringify({ t: Math.round(f.t * 10) / 10, dir: f.dir, session: f.session, frame: f.frame }))].join('\n') + '\n';
}

/** Reads a recording; a bad line is an error naming it. A plain NDJSON of frames (the inspector's copy) is read as frames sent by the client. */
export function parseRecording(text: string): Recording {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const out: Recording = { frames: [] };
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1}: not JSON`);
    }
    if (typeof v !== 'object' || v === null) throw new Error(`line ${i + 1}: not a JSON object or array`);
    const o = v as Record<string, unknown>;
    if (o.format === RECORDING_FORMAT) {
      out.created = typeof o.created === 'string' ? o.created : undefined;
      if (typeof o.server === 'object' && o.server !== null) out.server = o.server as Recording['server'];
      return;
    }
    if (typeof o.frame === 'string' && (o.dir === 'out' || o.dir === 'in')) {
      out.frames.push({ t: typeof o.t === 'number' ? o.t : 0, dir: o.dir, session: typeof o.session === 'string' ? o.session : 'page', frame: o.frame });
      return;
    }
    // A bare frame (the inspector's "Copy as NDJSON"): requests and notifications go out, answers came in.
    const isMessage = Array.isArray(v) || 'method' in o;
    out.frames.push({ t: 0, dir: isMessage ? 'out' : 'in', session: 'page', frame: line });
  });
  if (!out.frames.length) throw new Error('no frames in the recording');
  return out;
}

/**
 * Members that legitimately differ between two runs of the same request (timings, snapshots,
 * session tokens, and `initialize`'s `_meta.models`: the model's load state and runtime then).
 */
const VOLATILE = new Set(['latencyMs', 'indexVersion', 'session', 'loadMs', 'ms', 'models']);

export interface Difference {
  path: string;
  recorded: unknown;
  replayed: unknown;
}

/** Where two answers differ (volatile members ignored), at most `max` places. */
export function diffAnswers(recorded: unknown, replayed: unknown, max = 20): Difference[] {
  const out: Difference[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (out.length >= max) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const k of [...keys].sort()) {
        if (VOLATILE.has(k)) continue;
        walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      }
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path || '(the whole answer)', recorded: a, replayed: b });
  };
  walk(recorded, replayed, '');
  return out;
}

/** The sessions of a recording with the number of frames each sent, busiest first. */
export function sessionsOf(r: Recording): { session: string; sent: number }[] {
  const n = new Map<string, number>();
  for (const f of r.frames) if (f.dir === 'out') n.set(f.session, (n.get(f.session) ?? 0) + 1);
  return [...n].map(([session, sent]) => ({ session, sent })).sort((a, b) => b.sent - a.sent);
}
