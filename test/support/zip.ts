/**
 * A minimal ZIP writer for fixtures (wheels in the model-build tests, .docx in the import e2e):
 * members stored as they are (method 0, as a wheel) or deflated (method 8, as Word writes).
 */
import { crc32, deflateRawSync } from 'node:zlib';

export function makeZip(files: Iterable<readonly [name: string, text: string]>, options: { deflate?: boolean } = {}): Buffer {
  const method = options.deflate ? 8 : 0;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let count = 0;
  let offset = 0;
  for (const [name, text] of files) {
    const raw = Buffer.from(text);
    const body = options.deflate ? deflateRawSync(raw) : raw;
    const nameBuf = Buffer.from(name);
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, body);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + body.length;
    count++;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
