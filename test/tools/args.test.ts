/** tools/lib/args.ts: the dev tools' one parser (node:util parseArgs, strict, with --help). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cliArgs } from '../../tools/lib/args.ts';
import { captureExit } from '../support/exit-capture.ts';

const options = { size: { type: 'string' }, quick: { type: 'boolean' }, set: { type: 'string', multiple: true } } as const;

/** Runs cliArgs with process.exit and the console captured. */
const run = (argv: string[], positionals = false) => captureExit(() => cliArgs({ usage: 'tool [--size N] [--quick]', options, argv, positionals }));

afterEach(() => vi.restoreAllMocks());

describe('cliArgs', () => {
  it('parses declared flags in both spellings, repeated ones as a list', () => {
    const { parsed } = run(['--size', '10', '--quick', '--set=a', '--set', 'b']);
    expect(parsed?.values).toEqual({ size: '10', quick: true, set: ['a', 'b'] });
    expect(run(['--size=7']).parsed?.values.size).toBe('7');
  });

  it('refuses an unknown flag and a string flag without its value, with the usage (exit 2)', () => {
    for (const argv of [['--sise', '10'], ['--size'], ['extra']]) {
      const r = run(argv);
      expect(r.code).toBe(2);
      expect(r.out.join('\n')).toContain('usage: tool [--size N] [--quick]');
    }
  });

  it('prints the usage for --help and -h (exit 0)', () => {
    for (const argv of [['--help'], ['-h']]) {
      const r = run(argv);
      expect(r.code).toBe(0);
      expect(r.out).toEqual(['usage: tool [--size N] [--quick]']);
    }
  });

  it('takes positionals only when asked', () => {
    expect(run(['a', 'b', '--quick'], true).parsed?.positionals).toEqual(['a', 'b']);
  });
});
