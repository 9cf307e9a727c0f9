import { describe, expect, it } from 'vitest';
import { crc32c, readLevelDbLog, writeLevelDbLog } from '../../tools/lib/leveldb-log.ts';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe('LevelDB log reader (the issue-21 reproduction reads Chromium logs with it)', () => {
  it('computes CRC-32C (the check value of "123456789" is e3069283)', () => {
    expect(crc32c(new TextEncoder().encode('123456789')).toString(16)).toBe('e3069283');
  });

  it('reads full and fragmented records (a payload spanning 32 KiB blocks) as whole', () => {
    const log = writeLevelDbLog([bytes(100, 1), bytes(80_000, 2), bytes(5, 3)]);
    expect(readLevelDbLog(log)).toEqual({ bytes: log.length, records: 3, corrupt: [] });
  });

  it('a kill between a header and its payload is a torn tail, which is not corruption while it is the end', () => {
    const log = writeLevelDbLog([bytes(100, 1), bytes(76, 2)]);
    const torn = log.subarray(0, log.length - 76); // the header was written, the payload not
    const r = readLevelDbLog(torn);
    expect(r.records).toBe(1);
    expect(r.tornTail).toMatch(/says 76 bytes, 0 are there/);
    expect(r.corrupt).toEqual([]);
  });

  it('records appended after a torn tail (the log reused by the next start) turn it into corruption mid-log', () => {
    const log = writeLevelDbLog([bytes(100, 1), bytes(76, 2)]);
    const torn = log.subarray(0, log.length - 76);
    const reused = writeLevelDbLog([bytes(500, 4)], torn); // the next start writes on after the torn header
    const r = readLevelDbLog(reused);
    expect(r.corrupt[0]).toMatch(/^checksum mismatch at 107/);
  });

  it('a multi-fragment record cut after its first fragment is a torn tail', () => {
    const log = writeLevelDbLog([bytes(50_000, 5)]);
    expect(readLevelDbLog(log.subarray(0, 32_768)).tornTail).toMatch(/never ends/);
  });
});
