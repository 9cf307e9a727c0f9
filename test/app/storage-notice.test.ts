import { describe, expect, it } from 'vitest';
import { storageKind } from '../../src/app/storage-notice.ts';

const refusing = (name: string) => ({ getDirectory: () => Promise.reject(Object.assign(new Error(name), { name })) });

describe('storageKind', () => {
  it('is unmanaged without a storage manager or without OPFS (WebKitGTK)', async () => {
    expect(await storageKind(undefined)).toBe('unmanaged');
    expect(await storageKind({} as never)).toBe('unmanaged');
  });
  it('is ephemeral when OPFS refuses with a SecurityError (a Firefox private window)', async () => {
    expect(await storageKind(refusing('SecurityError') as never)).toBe('ephemeral');
  });
  it('is durable when OPFS opens, or fails for another reason', async () => {
    expect(await storageKind({ getDirectory: () => Promise.resolve({}) } as never)).toBe('durable');
    expect(await storageKind(refusing('UnknownError') as never)).toBe('durable');
  });
});
