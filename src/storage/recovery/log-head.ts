/**
 * What the open needs of a log file without folding it: where its frames end and the index
 * version it reached (its last manifest). Folding decodes every byte (≈ 0.5–1 s for 10,000
 * passages, all before the first answer); this reads the frame headers, checks the last frame's
 * checksum, and peeks the last manifest at the start of the last change entry (written manifest
 * first for this) or of the base.
 *
 * Only the last frame is checked: frames are written one at a time, each flushed before the next
 * is begun, so a kill can tear only the last. Anything unexpected (a torn or damaged frame,
 * another format, a manifest it cannot peek) answers undefined, and the caller folds the file as
 * before, which drops and reports what it must.
 */
import type { Manifest } from '../../engine/contracts.ts';
import { decodeValue, VALUE_HEAD } from '../../bundle/codec.ts';
import { crc32, FRAME_HEAD, frameHeader } from './frames.ts';
import { isLogEntry, LOG_FORMAT } from './log-state.ts';

/** Header characters read to peek a base's manifest (a manifest lists its tombstones: usually small). */
const PEEK_CHARS = 1 << 20;

export interface LogHead {
  /** Bytes of the base frame, and of the whole frames after it (the file ends there). */
  baseBytes: number;
  end: number;
  /** The index the file reached (undefined: an empty one). */
  manifest: Manifest | undefined;
}

/** Reads `length` bytes at `at` of one file (fewer at its end). */
export type ReadAt = (at: number, length: number) => Promise<Uint8Array>;

/**
 * The head of a clean log file of this format, or undefined (fold it instead). Reads the frame
 * headers, the last frame whole (its checksum), and the start of the frames it peeks: not the
 * file (tens of MB for 10,000 passages).
 */
export async function readHead(size: number, read: ReadAt): Promise<LogHead | undefined> {
  const frames: { at: number; length: number }[] = [];
  for (let at = 0; at < size; ) {
    if (size - at < FRAME_HEAD) return undefined;
    const bytes = await read(at, FRAME_HEAD);
    const head = bytes.length < FRAME_HEAD ? undefined : frameHeader(bytes);
    if (!head) return undefined;
    const { length } = head;
    if (at + FRAME_HEAD + length > size) return undefined;
    frames.push({ at, length });
    at += FRAME_HEAD + length;
  }
  if (!frames.length) return undefined;
  const last = frames[frames.length - 1];
  const tail = await read(last.at, FRAME_HEAD + last.length);
  if (crc32(tail.subarray(FRAME_HEAD)) !== frameHeader(tail)?.crc) return undefined;
  const payloadStart = async (i: number): Promise<Uint8Array> =>
    i === frames.length - 1 ? tail.subarray(FRAME_HEAD) : read(frames[i].at + FRAME_HEAD, Math.min(frames[i].length, VALUE_HEAD + PEEK_CHARS));
  for (let i = frames.length - 1; i >= 0; i--) {
    const peeked = peekManifest(await payloadStart(i), i === 0);
    if (peeked === 'feedback') continue;
    if (peeked) return { baseBytes: FRAME_HEAD + frames[0].length, end: size, manifest: peeked.manifest };
    if (i === 0 || i !== frames.length - 1) return undefined;
    // An entry written with its manifest last (before manifests came first): decode it whole.
    let entry: unknown;
    try {
      entry = decodeValue(tail.subarray(FRAME_HEAD));
    } catch {
      return undefined;
    }
    if (!isLogEntry(entry)) return undefined;
    if (entry.kind === 'change') return { baseBytes: FRAME_HEAD + frames[0].length, end: size, manifest: entry.change.manifest };
  }
  return undefined;
}

const BASE_START = /^\{"kind":"base","format":(\d+),"generation":\d+,"snapshot":\{/;
const CHANGE_START = /^\{"kind":"change","change":\{/;

/**
 * A frame's manifest read from the start of its header JSON: a base's
 * (`{"kind":"base","format":…,"snapshot":{"manifest":{…}`) or a change's written manifest first
 * (`{"kind":"change","change":{"manifest":{…}`); 'feedback' for a feedback entry (it has none).
 */
function peekManifest(payload: Uint8Array, base: boolean): { manifest: Manifest | undefined } | 'feedback' | undefined {
  if (payload.length < VALUE_HEAD) return undefined;
  const length = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(4, true);
  const text = new TextDecoder().decode(payload.subarray(VALUE_HEAD, VALUE_HEAD + Math.min(length, PEEK_CHARS)));
  let rest: number;
  if (base) {
    const start = BASE_START.exec(text);
    if (!start || Number(start[1]) !== LOG_FORMAT) return undefined;
    rest = start[0].length;
    if (text.startsWith('"documents":', rest)) return { manifest: undefined };
  } else {
    if (text.startsWith('{"kind":"feedback"')) return 'feedback';
    const start = CHANGE_START.exec(text);
    if (!start) return undefined;
    rest = start[0].length;
  }
  if (!text.startsWith('"manifest":', rest)) return undefined;
  const from = rest + '"manifest":'.length;
  const to = objectEnd(text, from);
  if (to < 0) return undefined;
  const json = text.slice(from, to);
  if (json.includes('"$t":')) return undefined; // a typed array in it: fold instead
  try {
    return { manifest: JSON.parse(json) as Manifest };
  } catch {
    return undefined;
  }
}
/** Where the JSON object starting at `from` ends (after its closing brace), or -1 when `text` cuts it short. */
function objectEnd(text: string, from: number): number {
  if (text[from] !== '{') return -1;
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}
