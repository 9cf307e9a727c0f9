/**
 * The session's frames as records: direction, kind, method, id, size, and for responses the
 * method and latency of the request they answer. Pure bookkeeping; the inspector renders it.
 * Memory is capped: the newest frames keep their full text in the heap; older ones are folded to a
 * short preview, their full text moved into a Blob (which the browser may keep on disk) and read
 * back on demand (`fullText`); beyond the overall budget the oldest are dropped.
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
  /** The frame as it travelled, while it is among the newest; undefined once folded (see `FrameLog.fullText`). */
  text?: string;
  /** The first PREVIEW_CHARS characters, always kept. */
  preview: string;
  /** Which session carried it: the page's own, the import session, the sample seeder's, the console's, or the tour's. */
  session: FrameSession;
}

/** A large frame handed over by another worker: `FrameLog.addLarge`. */
export interface LargeFrame {
  /** Its first HEAD_CHARS characters. */
  head: string;
  bytes: number;
  body: Blob;
}

/** How much of a large frame's head `addLarge` needs (its envelope and the preview). */
export const HEAD_CHARS = 1024;

export type FrameSession = 'page' | 'import' | 'sample' | 'console' | 'tour';

const encoder = new TextEncoder();

/** Frames longer than this are classified from their head when it is in the usual key order. */
export const LARGE_FRAME = 16 * 1024;
const HEAD = /^\{"jsonrpc":"2\.0",(?:"id":(-?\d+|"(?:[^"\\]|\\.)*"|null),)?"(method|result|error)"(?::"((?:[^"\\]|\\.)*)")?/;

/**
 * The envelope of a large frame (id, method, whether it is a result or an error) read from its
 * first characters, so a 250 KB import batch is not parsed whole just to label it; undefined when
 * the head is not in the order our client and server write it (the caller then parses it all).
 */
function fromHead(text: string): { id?: string | number | null; method?: string; error?: true } | undefined {
  const m = HEAD.exec(text.slice(0, HEAD_CHARS));
  if (!m) return undefined;
  const id = m[1] === undefined ? undefined : (JSON.parse(m[1]) as string | number | null);
  if (m[2] === 'method') return m[3] === undefined ? undefined : { ...(id !== undefined ? { id } : {}), method: JSON.parse(`"${m[3]}"`) as string };
  if (id === undefined) return undefined;
  return m[2] === 'error' ? { id, error: true } : { id };
}

/** Frames kept: the newest, at most this many and this many bytes (imports send 250 KB frames). */
export const MAX_FRAMES = 5000;
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;
/** Frames whose full text stays in the heap: the newest, at most this many and this many bytes. */
export const FULL_FRAMES = 200;
export const FULL_FRAME_BYTES = 4 * 1024 * 1024;
export const PREVIEW_CHARS = 300;

export class FrameLog {
  readonly records: FrameRecord[] = [];
  private bytes = 0;
  /** Bytes of the frames whose text is still in the heap, and the index of the oldest of them. */
  private fullBytes = 0;
  private firstFull = 0;
  /** Folded frames' full texts, by sequence number. */
  private readonly folded = new Map<number, Blob>();
  private readonly started = performance.now();
  /** Requests awaiting an answer, by session and id (each session numbers its own requests). */
  private readonly sent = new Map<string, { method: string; at: number }>();
  private seq = 0;
  private readonly listeners = new Set<(r: FrameRecord) => void>();

  /** Must be called for every frame, in order (wire it to `RcpClient`'s `onFrame`). */
  add(direction: Direction, text: string, session: FrameSession = 'page'): FrameRecord {
    const rec: FrameRecord = { seq: ++this.seq, at: 0, direction, kind: 'invalid', bytes: encoder.encode(text).length, text, preview: text.slice(0, PREVIEW_CHARS), session };
    let msg: unknown = text.length > LARGE_FRAME ? fromHead(text) : undefined;
    if (msg === undefined) {
      try {
        msg = JSON.parse(text);
      } catch {
        msg = undefined;
      }
    }
    return this.keep(rec, msg);
  }

  /**
   * A large frame that travelled in another worker (the sample seeder's), given as its first
   * characters, its UTF-8 length and its full text as a Blob: the page never copies, measures or
   * parses the whole text, and reads it back only when someone opens the frame (`fullText`).
   */
  addLarge(direction: Direction, frame: LargeFrame, session: FrameSession): FrameRecord {
    const rec: FrameRecord = { seq: ++this.seq, at: 0, direction, kind: 'invalid', bytes: frame.bytes, preview: frame.head.slice(0, PREVIEW_CHARS), session };
    this.folded.set(rec.seq, frame.body);
    const msg = fromHead(frame.head);
    // Already folded: it counts against the kept bytes, not against those held in the heap.
    this.fullBytes -= rec.bytes;
    return this.keep(rec, msg);
  }

  private keep(rec: FrameRecord, msg: unknown): FrameRecord {
    const now = performance.now();
    rec.at = now - this.started;
    const { direction, session } = rec;
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
    this.fullBytes += rec.bytes;
    this.trim();
    this.fold();
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
    this.fullBytes = 0;
    this.firstFull = 0;
    this.folded.clear();
  }

  /** The frame's full text: from the heap for the newest frames, read back from its Blob for folded ones. */
  async fullText(rec: FrameRecord): Promise<string> {
    if (rec.text !== undefined) return rec.text;
    const blob = this.folded.get(rec.seq);
    return blob ? blob.text() : rec.preview; // dropped meanwhile: the preview is all there is
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
    for (const r of this.records.slice(0, drop)) {
      if (r.text !== undefined) this.fullBytes -= r.bytes;
      this.folded.delete(r.seq);
    }
    this.records.splice(0, drop);
    this.firstFull = Math.max(0, this.firstFull - drop);
    this.bytes = bytes;
  }

  /** Folds the oldest frames still in the heap beyond FULL_FRAMES / FULL_FRAME_BYTES (never the newest). */
  private fold(): void {
    const last = this.records.length - 1;
    while (this.firstFull < last && (last + 1 - this.firstFull > FULL_FRAMES || this.fullBytes > FULL_FRAME_BYTES)) {
      const r = this.records[this.firstFull++];
      if (r.text === undefined) continue;
      if (r.text.length > PREVIEW_CHARS) this.folded.set(r.seq, new Blob([r.text]));
      this.fullBytes -= r.bytes;
      r.text = undefined;
    }
  }
}

/** Newline-delimited JSON of the given frame texts, one frame per line, as they travelled. */
export const toNdjson = (texts: readonly string[]): string => texts.map((t) => t.replace(/\n/g, ' ')).join('\n') + (texts.length ? '\n' : '');
