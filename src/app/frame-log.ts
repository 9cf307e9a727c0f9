/**
 * The session's frames as records: direction, kind, method, id, size, and for responses the
 * method and latency of the request they answer. Pure bookkeeping; the inspector renders it.
 */
export type Direction = 'out' | 'in';
export type FrameKind = 'request' | 'notification' | 'response' | 'error' | 'batch' | 'invalid';

export interface FrameRecord {
  seq: number;
  /** ms since the log started. */
  at: number;
  direction: Direction;
  kind: FrameKind;
  method?: string;
  id?: string | number | null;
  bytes: number;
  /** For responses: ms since the matching request was sent. */
  latencyMs?: number;
  text: string;
  /** Which of the page's sessions carried it: the page's own, the import session, the console's, or the tour's. */
  session: FrameSession;
}

export type FrameSession = 'page' | 'import' | 'console' | 'tour';

const encoder = new TextEncoder();

/** Frames kept: the newest, at most this many and this many bytes (imports send 250 KB frames). */
export const MAX_FRAMES = 5000;
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

export class FrameLog {
  readonly records: FrameRecord[] = [];
  private bytes = 0;
  private readonly started = performance.now();
  /** Requests awaiting an answer, by session and id (each session numbers its own requests). */
  private readonly sent = new Map<string, { method: string; at: number }>();
  private seq = 0;
  private readonly listeners = new Set<(r: FrameRecord) => void>();

  /** Must be called for every frame, in order (wire it to `RcpClient`'s `onFrame`). */
  add(direction: Direction, text: string, session: FrameSession = 'page'): FrameRecord {
    const now = performance.now();
    const rec: FrameRecord = { seq: ++this.seq, at: now - this.started, direction, kind: 'invalid', bytes: encoder.encode(text).length, text, session };
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = undefined;
    }
    if (Array.isArray(msg)) {
      rec.kind = 'batch';
      rec.method = `batch[${msg.length}]`;
    } else if (msg && typeof msg === 'object') {
      const m = msg as { id?: string | number | null; method?: unknown; error?: unknown };
      if (typeof m.method === 'string') {
        rec.method = m.method;
        if ('id' in m && m.id !== undefined) {
          rec.kind = 'request';
          rec.id = m.id;
          if (direction === 'out' && m.id !== null) this.sent.set(`${session}:${m.id}`, { method: m.method, at: now });
        } else rec.kind = 'notification';
      } else if ('id' in m) {
        rec.kind = m.error !== undefined ? 'error' : 'response';
        rec.id = m.id ?? null;
        const key = `${session}:${m.id}`;
        const req = m.id !== null && m.id !== undefined ? this.sent.get(key) : undefined;
        if (req && direction === 'in') {
          rec.method = req.method;
          rec.latencyMs = now - req.at;
          this.sent.delete(key);
        }
      }
    }
    this.records.push(rec);
    this.bytes += rec.bytes;
    this.trim();
    for (const fn of this.listeners) fn(rec);
    return rec;
  }

  subscribe(fn: (r: FrameRecord) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  clear(): void {
    this.records.length = 0;
    this.bytes = 0;
  }

  /** Sequence number of the oldest frame still kept (views drop rows older than it). */
  get oldestSeq(): number {
    return this.records[0]?.seq ?? this.seq + 1;
  }

  /** Bounded memory on long sessions: drops the oldest frames beyond the count or byte budget (never the newest). */
  private trim(): void {
    let drop = 0;
    let bytes = this.bytes;
    while (this.records.length - drop > 1 && (this.records.length - drop > MAX_FRAMES || bytes > MAX_FRAME_BYTES)) bytes -= this.records[drop++].bytes;
    if (drop === 0) return;
    this.records.splice(0, drop);
    this.bytes = bytes;
  }
}

/** Newline-delimited JSON of the given frames, one frame per line, as they travelled. */
export const toNdjson = (records: readonly FrameRecord[]): string => records.map((r) => r.text.replace(/\n/g, ' ')).join('\n') + (records.length ? '\n' : '');
