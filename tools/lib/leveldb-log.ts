/**
 * Reads a LevelDB log file (the write-ahead log Chromium's IndexedDB keeps in
 * `<origin>.indexeddb.leveldb/NNNNNN.log`) the way LevelDB's recovery does, and says where it is
 * torn or corrupt. The format: 32 KiB blocks of fragments, each a 7-byte header (masked CRC-32C
 * of type + payload, u16 length, type: 1 full, 2 first, 3 middle, 4 last) and its payload.
 *
 * Used by the issue-21 reproduction (scripts/kill-mid-write.ts) to show the cause: a kill between
 * a fragment's header and payload leaves a torn tail, which recovery tolerates at the end of the
 * file; the next start reuses the log and appends after it, and the start after that finds the
 * torn bytes mid-log — "checksum mismatch", and Chromium discards the whole database.
 */

const BLOCK = 32 * 1024;
const HEADER = 7;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli) of bytes [start, end). */
export function crc32c(b: Uint8Array, start = 0, end = b.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** LevelDB stores CRCs masked (so a CRC of data that embeds CRCs is not trivially zero). */
export const maskCrc = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;

export interface LogReport {
  bytes: number;
  /** Complete logical records (full, or first … last). */
  records: number;
  /** A torn record at the very end (recovery drops it silently). */
  tornTail?: string;
  /** Damage before the end of the file (with paranoid checks, recovery fails: Chromium discards the database). */
  corrupt: string[];
}

/** Walks the log's fragments from the start. */
export function readLevelDbLog(buf: Uint8Array): LogReport {
  const report: LogReport = { bytes: buf.length, records: 0, corrupt: [] };
  let off = 0;
  let open: number | undefined; // offset of an unfinished FIRST fragment
  while (off < buf.length) {
    const left = BLOCK - (off % BLOCK);
    if (left < HEADER) {
      off += left; // a block's trailer: too short for a header, zero-filled
      continue;
    }
    if (off + HEADER > buf.length) {
      report.tornTail = `a header cut short at ${off}`;
      break;
    }
    const stored = (buf[off] | (buf[off + 1] << 8) | (buf[off + 2] << 16) | (buf[off + 3] << 24)) >>> 0;
    const len = buf[off + 4] | (buf[off + 5] << 8);
    const type = buf[off + 6];
    if (type === 0 && len === 0) {
      off += left; // preallocated zeros
      continue;
    }
    const end = off + HEADER + len;
    if (end > buf.length) {
      report.tornTail = `a record at ${off} says ${len} bytes, ${buf.length - off - HEADER} are there`;
      break;
    }
    if (maskCrc(crc32c(buf, off + 6, end)) !== stored) {
      report.corrupt.push(`checksum mismatch at ${off} (${buf.length - end} bytes follow)`);
    } else if (type === 1 || type === 4) {
      if (type === 1 && open !== undefined) report.corrupt.push(`a full record at ${off} after the unfinished record at ${open}`);
      if (type === 4 && open === undefined) report.corrupt.push(`a last fragment at ${off} without a first`);
      open = undefined;
      report.records++;
    } else if (type === 2) {
      if (open !== undefined) report.corrupt.push(`a first fragment at ${off} after the unfinished record at ${open}`);
      open = off;
    }
    off = end;
  }
  if (open !== undefined && !report.tornTail) report.tornTail = `the record begun at ${open} never ends`;
  return report;
}

/**
 * A log of `payloads` as LevelDB writes it, appended to `after` (a writer reusing a log resumes
 * at its end, in the same block). Tests build logs to tear with it.
 */
export function writeLevelDbLog(payloads: Uint8Array[], after: Uint8Array = new Uint8Array()): Uint8Array {
  const out: number[] = Array.from(after);
  for (const p of payloads) {
    let pos = 0;
    let first = true;
    do {
      let left = BLOCK - (out.length % BLOCK);
      if (left < HEADER) {
        for (; left > 0; left--) out.push(0);
        left = BLOCK;
      }
      const n = Math.min(p.length - pos, left - HEADER);
      const last = pos + n === p.length;
      const type = first && last ? 1 : first ? 2 : last ? 4 : 3;
      const frag = new Uint8Array(1 + n);
      frag[0] = type;
      frag.set(p.subarray(pos, pos + n), 1);
      const crc = maskCrc(crc32c(frag));
      out.push(crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24, n & 0xff, n >>> 8, type, ...p.subarray(pos, pos + n));
      pos += n;
      first = false;
    } while (pos < p.length);
  }
  return Uint8Array.from(out);
}
