import { describe, expect, it } from 'vitest';
import { count, plural } from '../../src/app/format.ts';

describe('count', () => {
  it('groups digits exactly as Intl does for English', () => {
    const en = new Intl.NumberFormat('en');
    const samples = [0, 1, -1, 12, 999, 1000, -1000, 14_902, 100_000, 999_999, 1_000_000, -12_345_678, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 200; i++) samples.push(Math.floor((Math.random() - 0.5) * 10 ** (1 + (i % 15))));
    for (const n of samples) expect(count(n), String(n)).toBe(en.format(n));
  });

  it('formats non-integers through Intl', () => {
    expect(count(1234.5)).toBe('1,234.5');
    expect(count(Number.NaN)).toBe('NaN');
  });

  it('pluralises with the grouped count', () => {
    expect(plural(1, 'passage')).toBe('1 passage');
    expect(plural(14_902, 'passage')).toBe('14,902 passages');
  });
});
