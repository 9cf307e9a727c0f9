import { describe, expect, it } from 'vitest';
import { rcpError } from '../support/rcp-error.ts';
import {
  base64ToBytes, bytesToBase64, decodeF32Base64, decodeVectors, encodeF32Base64, encodeVectors, toJsonVector,
} from '../../src/protocol/vector-codec.ts';


describe('f32-base64 encoding (§7.3.1)', () => {
  it('§7.3.1 [1, -2, 0.5] encodes to the hand-computed little-endian blob', () => {
    // 1.0 = 0x3F800000 → 00 00 80 3F; -2.0 = 0xC0000000 → 00 00 00 C0; 0.5 = 0x3F000000 → 00 00 00 3F
    expect(encodeF32Base64([1, -2, 0.5])).toBe('AACAPwAAAMAAAAA/');
    expect(Array.from(decodeF32Base64('AACAPwAAAMAAAAA/', 3, 'vectors[0]'))).toEqual([1, -2, 0.5]);
  });

  it('§7.3.1 byte order is little-endian regardless of host (matches Buffer.writeFloatLE)', () => {
    const v = [3.14159, -0, 1e-30, 65504, -123456.78];
    const buf = Buffer.alloc(v.length * 4);
    v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
    expect(encodeF32Base64(v)).toBe(buf.toString('base64'));
    expect(encodeF32Base64(new Float32Array(v))).toBe(buf.toString('base64'));
  });

  it('§7.3.1 round trip is bit-exact for float32 values, including -0 and subnormals', () => {
    const v = new Float32Array([0, -0, 1.401298464324817e-45, 3.4028234663852886e38, -1.5, 0.1]);
    const back = decodeF32Base64(encodeF32Base64(v), v.length, 'x');
    expect(new Uint32Array(back.buffer)).toEqual(new Uint32Array(v.buffer));
  });

  it('§7.3.1 round trip of random vectors of every length 0..40 (covers all padding cases)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (let d = 0; d <= 40; d++) {
      const v = Float32Array.from({ length: d }, rand);
      const blob = encodeF32Base64(v);
      expect(blob.length % 4).toBe(0);
      expect(blob).toBe(Buffer.from(v.buffer).toString('base64'));
      expect(decodeF32Base64(blob, d, 'x')).toEqual(v);
    }
  });

  it('§7.3.1 decode of a 1024-dim vector returns a Float32Array of that dimension', () => {
    const v = Float32Array.from({ length: 1024 }, (_, i) => i / 7);
    const out = decodeF32Base64(encodeF32Base64(v), 1024, 'x');
    expect(out).toBeInstanceOf(Float32Array);
    expect(out.length).toBe(1024);
    expect(out[1023]).toBeCloseTo(1023 / 7, 4);
  });

  it('§7.3.1 a blob of the wrong length is -32602 with data.field', () => {
    const blob = encodeF32Base64([1, 2, 3]);
    for (const dim of [2, 4, 0]) {
      const err = rcpError(() => decodeF32Base64(blob, dim, 'vectors[3]'));
      expect(err.code).toBe(-32602);
      expect(err.data?.field).toBe('vectors[3]');
    }
    // 13 bytes: valid base64 but not a multiple of 4 bytes
    const odd = Buffer.alloc(13).toString('base64');
    expect(rcpError(() => decodeF32Base64(odd, 3, 'hits[0].vector')).data?.field).toBe('hits[0].vector');
  });

  it('§7.3.1 invalid base64 (alphabet, padding, whitespace, url-safe) is -32602', () => {
    const good = encodeF32Base64([1, 2]); // 8 bytes → 12 chars with one '='
    expect(good.endsWith('=')).toBe(true);
    const bad = [
      good.slice(0, -1), // padding stripped
      good.replace('=', ''),
      `${good.slice(0, 4)} ${good.slice(4)}`,
      good.replace(/[A-Za-z]/, '*'),
      '@@@@@@@@@@@=',
      'AAAA=AAAAAAA',
      'AA==AAAAAAAA',
    ];
    for (const b of bad) {
      const err = rcpError(() => decodeF32Base64(b, 2, 'vectors[0]'));
      expect(err.code).toBe(-32602);
      expect(err.data?.field).toBe('vectors[0]');
    }
    // url-safe alphabet is not RFC 4648 §4
    const withPlus = encodeF32Base64([-1.7014118e38]);
    expect(base64ToBytes(withPlus.replace(/\+/g, '-').replace(/\//g, '_'))).toBeUndefined();
  });

  it('§7.3.1 a non-string blob or bad dimension is -32602, never a crash', () => {
    expect(rcpError(() => decodeF32Base64(42 as unknown as string, 1, 'v')).code).toBe(-32602);
    expect(rcpError(() => decodeF32Base64('AAAAAA==', 1.5, 'v')).code).toBe(-32602);
    expect(rcpError(() => decodeF32Base64('AAAAAA==', -1, 'v')).code).toBe(-32602);
  });

  it('RFC 4648 §10 test vectors for the byte codec', () => {
    const cases: [string, string][] = [['', ''], ['f', 'Zg=='], ['fo', 'Zm8='], ['foo', 'Zm9v'], ['foob', 'Zm9vYg=='], ['fooba', 'Zm9vYmE='], ['foobar', 'Zm9vYmFy']];
    for (const [plain, b64] of cases) {
      const bytes = new TextEncoder().encode(plain);
      expect(bytesToBase64(bytes)).toBe(b64);
      expect(base64ToBytes(b64)).toEqual(bytes);
    }
  });

  it('§7.3.1 a 4 MB batch (1000 × 1024 floats) encodes and decodes like Buffer, without stack overflow', () => {
    const bytes = new Uint8Array(4_096_001);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 8)) & 255;
    const text = bytesToBase64(bytes);
    expect(text === Buffer.from(bytes).toString('base64')).toBe(true);
    const back = base64ToBytes(text);
    expect(back && Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
    expect(base64ToBytes(`${text.slice(0, -4)}A=AA`)).toBeUndefined();
  });
});

describe('encodeVectors (§7.3.1, §4.6)', () => {
  it('§4.6 json encoding never emits NaN/Infinity (replaced by 0)', () => {
    const out = encodeVectors([new Float32Array([NaN, Infinity, -Infinity, 0.5])], 'json');
    expect(out).toEqual([[0, 0, 0, 0.5]]);
    expect(JSON.stringify(out)).toBe('[[0,0,0,0.5]]');
    expect(toJsonVector([1, NaN])).toEqual([1, 0]);
  });

  it('§7.3.1 f32-base64 encoding gives one blob per vector, in order', () => {
    const out = encodeVectors([new Float32Array([1, -2, 0.5]), new Float32Array([])], 'f32-base64');
    expect(out).toEqual(['AACAPwAAAMAAAAA/', '']);
  });

  it('§7.3.1 decodeVectors checks json arrays and blobs against the dimension', () => {
    expect(decodeVectors([[1, 2]], 'json', 2, 'vectors')[0]).toEqual(new Float32Array([1, 2]));
    expect(decodeVectors(['AACAPwAAAMAAAAA/'], 'f32-base64', 3, 'vectors')[0]).toEqual(new Float32Array([1, -2, 0.5]));
    expect(rcpError(() => decodeVectors([[1, 2], [1]], 'json', 2, 'vectors')).data?.field).toBe('vectors[1]');
    expect(rcpError(() => decodeVectors(['AACAPwAAAMAAAAA/'], 'f32-base64', 4, 'vectors')).data?.field).toBe('vectors[0]');
  });
});
