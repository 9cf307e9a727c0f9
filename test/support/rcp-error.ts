import { expect } from 'vitest';
import { RcpError } from '../../src/protocol/errors.ts';

/** Runs `fn`, expecting it to throw an RcpError; returns it for further assertions. */
export function rcpError(fn: () => unknown): RcpError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RcpError);
    return e as RcpError;
  }
  throw new Error('expected an RcpError');
}
