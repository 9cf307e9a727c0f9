import { describe, expect, it } from 'vitest';
import { ModelUnavailableError, UnembeddableInputError } from '../../src/engine/errors.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import { matchError, openFailure, toErrorObject } from '../../src/server/errors.ts';
import { StorageUnavailableError } from '../../src/storage/index.ts';

describe('the one error map (src/server/errors.ts)', () => {
  const cases: [string, number][] = [
    ['QuotaExceededError', ErrorCode.PayloadTooLarge],
    ['InvalidStateError', ErrorCode.BackendUnavailable],
    ['UnknownError', ErrorCode.BackendUnavailable],
    ['VersionError', ErrorCode.BackendUnavailable],
    ['AbortError', ErrorCode.BackendUnavailable],
    ['DataError', ErrorCode.InternalError],
  ];
  it.each(cases)('maps %s to %i', (name, code) => {
    const mapped = matchError(new DOMException('boom', name));
    expect(mapped).toBeInstanceOf(RcpError);
    expect(mapped!.code).toBe(code);
    expect(mapped!.data?.detail).toContain('boom');
  });

  it('recognises legacy quota errors and passes RcpErrors through', () => {
    expect(matchError(Object.assign(new Error('x'), { name: 'NS_ERROR_DOM_QUOTA_REACHED' }))?.code).toBe(ErrorCode.PayloadTooLarge);
    expect(matchError(new DOMException('legacy', 'QuotaExceededError'))?.toJSON()).toEqual({
      code: -32013,
      message: 'payload too large: storage quota exceeded (QuotaExceededError: legacy); free space or delete documents, then retry',
      data: { detail: 'storage quota exceeded (QuotaExceededError: legacy); free space or delete documents, then retry', retryable: false },
    });
    const own = new RcpError(ErrorCode.NotFound, 'nope');
    expect(matchError(own)).toBe(own);
  });

  it('maps the storage and model layers\' own errors to -32010', () => {
    const storage = matchError(new StorageUnavailableError('blocked', 'open timed out'));
    expect(storage?.code).toBe(ErrorCode.BackendUnavailable);
    expect(storage?.data?.detail).toContain('open timed out');
    const model = matchError(new ModelUnavailableError('model x is unavailable: 404'));
    expect(model?.toJSON()).toEqual({
      code: ErrorCode.BackendUnavailable,
      message: 'backend unavailable: model x is unavailable: 404',
      data: { detail: 'model x is unavailable: 404', retryable: true },
    });
  });

  it('leaves a plain bug unmapped: TypeError and RangeError are internal errors, never labelled IndexedDB', () => {
    for (const bug of [new TypeError('x is not a function'), new RangeError('bad length'), new Error('oops'), 'weird']) {
      expect(matchError(bug)).toBeUndefined();
      const wire = toErrorObject(bug);
      expect(wire.code).toBe(ErrorCode.InternalError);
      expect(JSON.stringify(wire)).not.toContain('IndexedDB');
    }
  });

  it('an AbortError without a cause is storage (-32010) on every path: no second map disagrees', () => {
    const aborted = new DOMException('transaction aborted', 'AbortError');
    expect(toErrorObject(aborted).code).toBe(ErrorCode.BackendUnavailable);
    expect(openFailure(aborted).code).toBe(ErrorCode.BackendUnavailable);
    // A cancel is the aborted signal's own RcpError, which passes first.
    expect(toErrorObject(new RcpError(ErrorCode.Cancelled, 'cancelled')).code).toBe(ErrorCode.Cancelled);
  });

  it('model errors are told by class, not by name', () => {
    expect(toErrorObject(new UnembeddableInputError('inputs[2]', 'no vector')).data).toMatchObject({ field: 'inputs[2]' });
    expect(toErrorObject(new UnembeddableInputError('inputs[2]', 'no vector')).code).toBe(ErrorCode.InvalidParams);
    const lookalike = Object.assign(new Error('not the class'), { name: 'ModelUnavailableError' });
    expect(toErrorObject(lookalike).code).toBe(ErrorCode.InternalError);
  });

  it('an engine that could not open: mapped failures keep their code, anything else is -32010', () => {
    expect(openFailure(new TypeError('boom')).toJSON()).toMatchObject({ code: ErrorCode.BackendUnavailable, data: { detail: 'index storage could not be opened: boom' } });
    expect(openFailure(new DOMException('full', 'QuotaExceededError')).code).toBe(ErrorCode.PayloadTooLarge);
  });
});
