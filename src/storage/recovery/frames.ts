/**
 * The recovery log's framing: each entry is
 *
 *   magic "RCPL" | u32 payload length | u32 CRC-32 of the payload | payload
 *
 * (little-endian). A reader takes entries from the start while each is whole and its checksum
 * matches, and stops at the first that is not: a write torn by a kill leaves a short or damaged
 * last frame, which is dropped, never misread.
 */

const MAGIC = 0x4c504352; // "RCPL" little-endian
/** Bytes before a frame's payload. */
export const FRAME_HEAD = 12;

/** CRC-32 tables for slicing-by-8: table k maps a byte to its CRC contribution k bytes further on. */
const CRC_TABLES = (() => {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n] >>> 8) ^ t[t[(k - 1) * 256 + n] & 0xff];
  return t;
})();

/** CRC-32 (IEEE, as zlib's `crc32`), 8 bytes a step: every log byte is checked on write and read (≈ 2× the bytewise loop in the bench). */
export function crc32(bytes: Uint8Array): number {
  const t = CRC_TABLES;
  let c = 0xffffffff;
  let i = 0;
  for (const end = bytes.length - 7; i < end; i += 8) {
    const lo = (c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
    c =
      t[1792 + (lo & 0xff)] ^ t[1536 + ((lo >>> 8) & 0xff)] ^ t[1280 + ((lo >>> 16) & 0xff)] ^ t[1024 + (lo >>> 24)] ^
      t[768 + bytes[i + 4]] ^ t[512 + bytes[i + 5]] ^ t[256 + bytes[i + 6]] ^ t[bytes[i + 7]];
  }
  for (; i < bytes.length; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One frame around `payload`. */
export function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEAD + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, payload.length, true);
  view.setUint32(8, crc32(payload), true);
  out.set(payload, FRAME_HEAD);
  return out;
}

/** The header of the frame at `at` (its payload's length and checksum), or undefined when it is no frame's; `bytes` must hold FRAME_HEAD bytes there. */
export function frameHeader(bytes: Uint8Array, at = 0): { length: number; crc: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, FRAME_HEAD);
  return view.getUint32(0, true) === MAGIC ? { length: view.getUint32(4, true), crc: view.getUint32(8, true) } : undefined;
}

/** What reading a file's frames found: the whole ones, where they end, and why reading stopped early. */
export interface ReadFrames {
  payloads: Uint8Array[];
  /** Bytes of the file covered by whole, checked frames (a writer appends from here). */
  end: number;
  /** Set when bytes after `end` were dropped: a torn or damaged frame. */
  dropped?: string;
}

/** The whole, checked frames of `bytes`, from the start (payloads are views of `bytes`). */
export function readFrames(bytes: Uint8Array): ReadFrames {
  const payloads: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const stop = (why: string): ReadFrames => ({ payloads, end: at, dropped: `${why} at byte ${at} (${bytes.length - at} bytes dropped)` });
    if (bytes.length - at < FRAME_HEAD) return stop('a torn frame header');
    const head = frameHeader(bytes, at);
    if (!head) return stop('a damaged frame');
    if (at + FRAME_HEAD + head.length > bytes.length) return stop('a torn frame');
    const payload = bytes.subarray(at + FRAME_HEAD, at + FRAME_HEAD + head.length);
    if (crc32(payload) !== head.crc) return stop('a frame whose checksum does not match');
    payloads.push(payload);
    at += FRAME_HEAD + head.length;
  }
  return { payloads, end: at };
}
