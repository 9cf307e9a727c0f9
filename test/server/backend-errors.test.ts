import { describe, expect, it } from 'vitest';
import { ModelUnavailableError } from '../../src/models/errors.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import { mapBackendError } from '../../src/server/backend-errors.ts';
import { toErrorObject } from '../../src/server/error-mapping.ts';
import { StorageUnavailableError } from '../../src/storage/index.ts';

describe('mapBackendError', () => {
  const cases: [string, number][] = [
    ['QuotaExceededError', ErrorCode.PayloadTooLarge],
    ['InvalidStateError', ErrorCode.BackendUnavailable],
    ['UnknownError', ErrorCode.BackendUnavailable],
    ['VersionError', ErrorCode.BackendUnavailable],
    ['AbortError', ErrorCode.BackendUnavailable],
    ['DataError', ErrorCode.InternalError],
  ];
  it.each(cases)('maps %s to %i', (name, code) => {
    const mapped = mapBackendError(new DOMException('boom', name));
    expect(mapped).toBeInstanceOf(RcpError);
    expect(mapped!.code).toBe(code);
    expect(mapped!.data?.detail).toContain('boom');
  });

  it('recognises legacy quota errors and passes RcpErrors through', () => {
    expect(mapBackendError(Object.assign(new Error('x'), { name: 'NS_ERROR_DOM_QUOTA_REACHED' }))?.code).toBe(ErrorCode.PayloadTooLarge);
    expect(mapBackendError(new DOMException('legacy', 'QuotaExceededError'))?.toJSON()).toEqual({
      code: -32013,
      message: 'payload too large: storage quota exceeded (QuotaExceededError: legacy); free space or delete documents, then retry',
      data: { detail: 'storage quota exceeded (QuotaExceededError: legacy); free space or delete documents, then retry', retryable: false },
    });
    const own = new RcpError(ErrorCode.NotFound, 'nope');
    expect(mapBackendError(own)).toBe(own);
  });

  it('maps the storage and model layers\' own errors to -32010', () => {
    const storage = mapBackendError(new StorageUnavailableError('blocked', 'open timed out'));
    expect(storage?.code).toBe(ErrorCode.BackendUnavailable);
    expect(storage?.data?.detail).toContain('open timed out');
    const model = mapBackendError(new ModelUnavailableError('model x is unavailable: 404'));
    expect(model?.toJSON()).toEqual({
      code: ErrorCode.BackendUnavailable,
      message: 'backend unavailable: model x is unavailable: 404',
      data: { detail: 'model x is unavailable: 404', retryable: true },
    });
  });

  it('leaves a plain bug unmapped: TypeError and RangeError are internal errors, never labelled IndexedDB', () => {
    for (const bug of [new TypeError('x is not a function'), new RangeError('bad length'), new Error('oops'), 'weird']) {
      expect(mapBackendError(bug)).toBeUndefined();
      const wire = toErrorObject(bug, mapBackendError);
      expect(wire.code).toBe(ErrorCode.InternalError);
      expect(JSON.stringify(wire)).not.toContain('IndexedDB');
    }
  });
});
