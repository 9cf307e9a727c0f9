import { describe, expect, it } from 'vitest';
import { parseRfc3339, toEpochMs } from '../../src/protocol/dates.ts';

describe('§4.6 timestamps', () => {
  it('§4.6 RFC 3339 date-times with Z, offsets and fractions', () => {
    expect(parseRfc3339('2017-06-12T00:00:00Z')).toBe(Date.UTC(2017, 5, 12));
    expect(parseRfc3339('2017-06-12t00:00:00z')).toBe(Date.UTC(2017, 5, 12));
    expect(parseRfc3339('2017-06-12T02:30:00+02:30')).toBe(Date.UTC(2017, 5, 12));
    expect(parseRfc3339('2017-06-11T19:00:00-05:00')).toBe(Date.UTC(2017, 5, 12));
    expect(parseRfc3339('2017-06-12T00:00:00.250Z')).toBe(Date.UTC(2017, 5, 12) + 250);
    expect(parseRfc3339('2017-06-12T00:00:00.1239999Z')).toBe(Date.UTC(2017, 5, 12) + 123);
    expect(parseRfc3339('1970-01-01T00:00:00Z')).toBe(0);
  });

  it('§4.6 a full-date is UTC midnight and an offset-less date-time is UTC (host zone never used)', () => {
    expect(parseRfc3339('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseRfc3339('2024-02-29T12:00:00')).toBe(Date.UTC(2024, 1, 29, 12));
    expect(parseRfc3339('0050-01-01')).toBe(new Date('0050-01-01T00:00:00Z').getTime());
  });

  it('§4.6 calendar-invalid and non-RFC 3339 text is rejected', () => {
    for (const s of ['2023-02-29', '2023-13-01', '2023-00-10', '2023-04-31', '2023-01-01T24:00:00Z', '2023-01-01T10:60:00Z',
      '2023-01-01T10:00:00+25:00', 'yesterday', '2023/01/01', '20230101', '2023-1-1', ' 2023-01-01', '2023-01-01T10:00Z', '']) {
      expect(parseRfc3339(s), s).toBeUndefined();
    }
  });

  it('§4.6 epoch ms must be an integer; other JSON types are not timestamps', () => {
    expect(toEpochMs(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(toEpochMs(-86_400_000)).toBe(-86_400_000);
    expect(toEpochMs('2017-06-12')).toBe(Date.UTC(2017, 5, 12));
    for (const v of [1.5, NaN, Infinity, 9e15, true, null, {}, []]) expect(toEpochMs(v)).toBeUndefined();
  });
});
